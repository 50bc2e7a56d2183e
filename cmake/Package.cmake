# `make package`: the Debian package, built by CPack from the install rules (the binary, the
# `confirm` tracer, the man page) plus what Debian asks of a package: the man page and the
# changelog compressed with `gzip -9n`, a machine-readable copyright file, strict permissions,
# and the shared libraries declared as dependencies by dpkg-shlibdeps. LLVM Support and the
# tree-sitter-python grammar are linked statically, so the package needs no LLVM.
set(TORCHLINT_MAINTAINER "torchlint maintainers <maintainers@users.noreply.a-seed-16e8db32.example>"
    CACHE STRING "The Maintainer field of the Debian package")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME torchlint)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "torchlint contributors")
set(CPACK_PACKAGE_CONTACT ${TORCHLINT_MAINTAINER})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # torchlint_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# `torchlint confirm` runs the user's Python script under the tracer.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3, python3-torch")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION [=[static analyzer for device-management bugs in PyTorch code
torchlint finds the bugs PyTorch users lose nights to before the program runs:
a model on one device fed tensors from another, moves whose result is thrown
away, checkpoints that only load on the machine that saved them, copies inside
forward(), hard-coded CUDA devices, CUDA work in DataLoader workers.
.
It checks files from the command line and in CI (text, JSON, SARIF, GitHub,
GitLab and JUnit reports), fixes what is safe to fix, runs as a pre-commit hook
and as a Language Server (torchlint lsp), and confirms its findings by running
the program under a tracer (torchlint confirm).]=])

# `make package` builds what the package holds (torchlint, its man page), then runs cpack:
# installing must not build `all`, which holds the tests when GoogleTest is there.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)

# Run on CPack's staging tree before it is packed (packaging/deb-stage.cmake).
set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_SOURCE_DIR}/packaging/deb-stage.cmake)
set(CPACK_TORCHLINT_PACKAGING_DIR ${CMAKE_SOURCE_DIR}/packaging)
set(CPACK_TORCHLINT_DOC_DIR ${CMAKE_INSTALL_DATADIR}/doc/torchlint)
set(CPACK_TORCHLINT_MAN_DIR ${CMAKE_INSTALL_MANDIR}/man1)

include(CPack)
