-- torchlint as an nvim-lspconfig server: put this in your init.lua (after nvim-lspconfig is
-- loaded), then `require("lspconfig").torchlint.setup({})`.
local configs = require("lspconfig.configs")
local util = require("lspconfig.util")

if not configs.torchlint then
  configs.torchlint = {
    default_config = {
      cmd = { "torchlint", "lsp" },
      filetypes = { "python" },
      root_dir = util.root_pattern("pyproject.toml", "torchlint.toml", ".git"),
      single_file_support = true,
    },
    docs = {
      description = "torchlint: device-management bugs in PyTorch code (`torchlint lsp`).",
    },
  }
end
