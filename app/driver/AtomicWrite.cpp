// Atomic replacement of a file: temporary file + fsync + rename.
#include "driver/AtomicWrite.h"

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace torchlint {

namespace {
llvm::Error fail(const llvm::Twine &Why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Why);
}
} // namespace

llvm::Error writeFileAtomically(const std::string &Path, std::string_view Text) {
  namespace fs = llvm::sys::fs;
  // The rename must replace the file a link points to, not the link.
  llvm::SmallString<256> Real;
  if (std::error_code EC = fs::real_path(Path, Real))
    return fail("cannot resolve the path: " + EC.message());
  fs::file_status St;
  if (std::error_code EC = fs::status(Real, St))
    return fail("cannot stat: " + EC.message());
  if (St.type() != fs::file_type::regular_file)
    return fail("not a regular file");
  fs::perms Perms = St.permissions();
  if (!(Perms & (fs::owner_write | fs::group_write | fs::others_write)))
    return fail("the file is read-only");
  if (fs::access(Real, fs::AccessMode::Write))
    return fail("no permission to write the file");

  llvm::SmallString<256> Model(llvm::sys::path::parent_path(Real));
  llvm::sys::path::append(Model, "." + llvm::sys::path::filename(Real).str() + ".torchlint-%%%%%%.tmp");
  int FD = -1;
  llvm::SmallString<256> Tmp;
  if (std::error_code EC = fs::createUniqueFile(Model, FD, Tmp, fs::OF_None, Perms))
    return fail("cannot create a temporary file beside it: " + EC.message());
  auto Cleanup = [&](const llvm::Twine &Why) {
    if (FD >= 0)
      ::close(FD);
    fs::remove(Tmp);
    return fail(Why);
  };
  for (size_t Done = 0; Done < Text.size();) {
    ssize_t N = ::write(FD, Text.data() + Done, Text.size() - Done);
    if (N < 0) {
      if (errno == EINTR)
        continue;
      return Cleanup(llvm::Twine("cannot write: ") + std::strerror(errno));
    }
    Done += static_cast<size_t>(N);
  }
  // The umask may have narrowed the mode createUniqueFile used: set it exactly.
  if (::fchmod(FD, static_cast<mode_t>(Perms)) != 0 || ::fsync(FD) != 0)
    return Cleanup(llvm::Twine("cannot write: ") + std::strerror(errno));
  int Closed = ::close(FD);
  FD = -1;
  if (Closed != 0)
    return Cleanup(llvm::Twine("cannot write: ") + std::strerror(errno));
  if (std::error_code EC = fs::rename(Tmp, Real))
    return Cleanup("cannot replace the file: " + EC.message());
  return llvm::Error::success();
}

} // namespace torchlint
