-- torchlint for Neovim's built-in LSP client: starts `torchlint lsp` for Python buffers.
-- Works on Neovim 0.7 (vim.lsp.start_client + buf_attach_client) and on 0.8+ (vim.lsp.start,
-- which also reuses a running client for the same root).
local M = {}

local function root_dir(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local dir = name ~= "" and vim.fn.fnamemodify(name, ":p:h") or vim.loop.cwd()
  for _, marker in ipairs({ "pyproject.toml", "torchlint.toml" }) do
    local found = vim.fn.findfile(marker, dir .. ";")
    if found ~= "" then
      return vim.fn.fnamemodify(found, ":p:h")
    end
  end
  local git = vim.fn.finddir(".git", dir .. ";")
  if git ~= "" then
    return vim.fn.fnamemodify(git, ":p:h:h") -- ":p" of a folder ends in "/"
  end
  return dir
end

local clients = {} -- root -> client id, for Neovim 0.7 which cannot look clients up itself

--- Attaches torchlint to buffer `bufnr`. `opts.cmd` overrides the command
--- (default: { "torchlint", "lsp" }).
function M.attach(bufnr, opts)
  opts = opts or {}
  local cmd = opts.cmd or { "torchlint", "lsp" }
  local root = root_dir(bufnr)
  local config = {
    name = "torchlint",
    cmd = cmd,
    root_dir = root,
    on_attach = opts.on_attach,
  }
  if vim.lsp.start then
    vim.lsp.start(config, { bufnr = bufnr })
    return
  end
  local id = clients[root]
  if not id or vim.lsp.get_client_by_id(id) == nil then
    id = vim.lsp.start_client(config)
    clients[root] = id
  end
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
end

--- Starts torchlint for every Python buffer from now on.
function M.setup(opts)
  local group = vim.api.nvim_create_augroup("torchlint", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = "python",
    callback = function(args)
      M.attach(args.buf, opts)
    end,
  })
end

return M
