-- Headless Neovim with editors/nvim's setup: opens the file named by $TORCHLINT_NVIM_FILE,
-- waits for torchlint's diagnostics and writes them, one "line:col:code:source" per line
-- (columns 1-based, in bytes as Neovim keeps them),
-- to $TORCHLINT_NVIM_OUT. Works with Neovim 0.7 (Debian 12) and newer.
local file = os.getenv("TORCHLINT_NVIM_FILE")
local out = os.getenv("TORCHLINT_NVIM_OUT")
local binary = os.getenv("TORCHLINT_BINARY")

require("torchlint").setup({ cmd = { binary, "lsp" } })
vim.cmd("edit " .. vim.fn.fnameescape(file))
local buf = vim.api.nvim_get_current_buf()

local ok = vim.wait(10000, function()
  return #vim.diagnostic.get(buf) > 0
end, 50)

local lines = {}
if not ok then
  table.insert(lines, "TIMEOUT: no diagnostics")
end
for _, d in ipairs(vim.diagnostic.get(buf)) do
  -- 0.7 keeps the LSP code under user_data; newer versions also put it on the diagnostic.
  local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or "?"
  local source = (d.message ~= "" and d.source) or "no message"
  table.insert(lines, string.format("%d:%d:%s:%s", d.lnum + 1, d.col + 1, code, source))
end
table.sort(lines)
vim.fn.writefile(lines, out)

-- Stop the server cleanly before quitting, as a user's :qa would.
for _, client in pairs(vim.lsp.get_active_clients()) do
  client.stop()
end
vim.wait(2000, function()
  return #vim.lsp.get_active_clients() == 0
end, 50)
vim.cmd("qa!")
