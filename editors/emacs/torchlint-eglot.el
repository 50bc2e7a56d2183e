;;; torchlint-eglot.el --- torchlint via Eglot  -*- lexical-binding: t; -*-
;; Registers `torchlint lsp' as the Python server for Eglot (Emacs 29 has Eglot built in).
;; Eglot runs one server per buffer: this replaces your other Python server for Eglot.
(with-eval-after-load 'eglot
  (add-to-list 'eglot-server-programs
               '((python-mode python-ts-mode) . ("torchlint" "lsp"))))
(provide 'torchlint-eglot)
;;; torchlint-eglot.el ends here
