// Atomic replacement of a file: temporary file + fsync + rename (or, for a file with several
// hard links, a write in place once the temporary file holds the whole text); the temporary
// files in flight, removed on a signal; those a killed run left, removed by the next.
#include "driver/AtomicWrite.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <set>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace torchlint {

namespace {

llvm::Error fail(const llvm::Twine &Why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Why);
}

constexpr std::string_view TempMarker = ".torchlint-", TempSuffix = ".tmp";
constexpr size_t TempRandom = 6; // createUniqueFile's `%`: one lower-case hex digit each

// The temporary files in flight, as the signal handler reads them. A slot is Free, Filling (its
// writer is copying the path in), Armed (the handler may remove it) or Removing (the handler took
// it: its writer leaves it be, as the process is ending). At most one write per thread is in
// flight: 256 slots are more than any run's threads.
enum SlotState : int { Free, Filling, Armed, Removing };
struct InFlightSlot {
  std::atomic<int> State{Free};
  char Path[PATH_MAX];
};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs lock-free atomics");
constexpr int SlotCount = 256;
InFlightSlot InFlight[SlotCount];

constexpr int HandledSignals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction Previous[std::size(HandledSignals)];

void removeInFlight(int Sig) {
  for (InFlightSlot &S : InFlight) {
    int Expected = Armed;
    if (S.State.compare_exchange_strong(Expected, Removing))
      ::unlink(S.Path);
  }
  // Then what the signal would have done without this handler (by default, end the process:
  // its parent sees it ended by the signal). Re-raised here, it is delivered on return.
  for (size_t I = 0; I < std::size(HandledSignals); ++I)
    if (HandledSignals[I] == Sig)
      ::sigaction(Sig, &Previous[I], nullptr);
  ::raise(Sig);
}

void installHandler() {
  struct sigaction Act;
  std::memset(&Act, 0, sizeof Act);
  Act.sa_handler = removeInFlight;
  sigfillset(&Act.sa_mask); // no second signal interrupts the removal
  Act.sa_flags = SA_RESTART;
  for (size_t I = 0; I < std::size(HandledSignals); ++I) {
    if (::sigaction(HandledSignals[I], nullptr, &Previous[I]) != 0)
      continue;
    if (!(Previous[I].sa_flags & SA_SIGINFO) && Previous[I].sa_handler == SIG_IGN)
      continue; // ignored (nohup): it ends nothing, so there is nothing to clean
    ::sigaction(HandledSignals[I], &Act, nullptr);
  }
}

/// Whether \p Name is a temporary file writeFileAtomically makes, and for which file.
std::optional<llvm::StringRef> temporaryFor(llvm::StringRef Name) {
  if (!Name.consume_front(".") || !Name.consume_back(TempSuffix) || Name.size() <= TempMarker.size() + TempRandom)
    return std::nullopt;
  llvm::StringRef Random = Name.take_back(TempRandom);
  if (!llvm::all_of(Random, [](char C) { return llvm::isDigit(C) || (C >= 'a' && C <= 'f'); }))
    return std::nullopt;
  Name = Name.drop_back(TempRandom);
  if (!Name.consume_back(TempMarker) || Name.empty())
    return std::nullopt;
  return Name;
}

bool before(const struct timespec &T, std::chrono::system_clock::time_point Limit) {
  auto Ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Limit.time_since_epoch()).count();
  return static_cast<int64_t>(T.tv_sec) * 1'000'000'000 + T.tv_nsec < Ns;
}

/// Removes \p Path if it is a regular file older than \p Limit that no process holds locked.
bool removeIfStale(const std::string &Path, std::chrono::system_clock::time_point Limit) {
  struct stat Seen;
  if (::lstat(Path.c_str(), &Seen) != 0 || !S_ISREG(Seen.st_mode) || !before(Seen.st_mtim, Limit))
    return false;
  int FD = ::open(Path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (FD < 0)
    return false;
  struct stat Opened, Again;
  // The lock proves no live writer holds it; the names are compared again under the lock, so
  // that what is removed is the file that was checked.
  bool Stale = ::fstat(FD, &Opened) == 0 && Opened.st_dev == Seen.st_dev && Opened.st_ino == Seen.st_ino &&
               ::flock(FD, LOCK_EX | LOCK_NB) == 0 && ::lstat(Path.c_str(), &Again) == 0 &&
               Again.st_dev == Opened.st_dev && Again.st_ino == Opened.st_ino && before(Again.st_mtim, Limit);
  bool Removed = Stale && ::unlink(Path.c_str()) == 0;
  ::close(FD);
  return Removed;
}

/// Writes all of \p Text into the file \p Path itself, from its start, then cuts it there.
llvm::Error writeInPlace(const std::string &Path, std::string_view Text) {
  int FD = ::open(Path.c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
  if (FD < 0)
    return fail(llvm::Twine("cannot open: ") + std::strerror(errno));
  auto Fail = [&] {
    std::string Why = std::strerror(errno);
    ::close(FD);
    return fail("cannot write: " + Why);
  };
  for (size_t Done = 0; Done < Text.size();) {
    ssize_t N = ::write(FD, Text.data() + Done, Text.size() - Done);
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0)
      return Fail();
    Done += static_cast<size_t>(N);
  }
  if (::ftruncate(FD, static_cast<off_t>(Text.size())) != 0 || ::fsync(FD) != 0)
    return Fail();
  if (::close(FD) != 0)
    return fail(llvm::Twine("cannot write: ") + std::strerror(errno));
  return llvm::Error::success();
}

} // namespace

RemoveOnSignal::RemoveOnSignal(const std::string &Path) {
  static std::once_flag Installed;
  std::call_once(Installed, installHandler);
  if (Path.size() >= PATH_MAX)
    return;
  for (int I = 0; I < SlotCount; ++I) {
    int Expected = Free;
    if (!InFlight[I].State.compare_exchange_strong(Expected, Filling))
      continue;
    std::memcpy(InFlight[I].Path, Path.c_str(), Path.size() + 1);
    InFlight[I].State.store(Armed, std::memory_order_release);
    Slot = I;
    return;
  }
}

RemoveOnSignal::~RemoveOnSignal() {
  if (Slot < 0)
    return;
  // Fails only when the handler took the slot: it owns it until the process ends.
  int Expected = Armed;
  InFlight[Slot].State.compare_exchange_strong(Expected, Free);
}

size_t removeStaleTemporaryFiles(const std::vector<std::string> &Files, std::chrono::system_clock::time_point Before) {
  namespace fs = llvm::sys::fs;
  // The temporary file is made beside the file the links lead to, as writeFileAtomically does.
  std::map<std::string, std::set<std::string, std::less<>>> ByFolder;
  for (const std::string &F : Files) {
    llvm::SmallString<256> Real;
    if (!fs::real_path(F, Real))
      ByFolder[std::string(llvm::sys::path::parent_path(Real))].insert(std::string(llvm::sys::path::filename(Real)));
  }
  size_t Removed = 0;
  for (const auto &[Dir, Names] : ByFolder) {
    std::error_code EC;
    for (fs::directory_iterator It(Dir, EC, /*FollowSymlinks=*/false), End; It != End && !EC; It.increment(EC)) {
      std::optional<llvm::StringRef> Of = temporaryFor(llvm::sys::path::filename(It->path()));
      if (Of && Names.count(*Of) && removeIfStale(It->path(), Before))
        ++Removed;
    }
  }
  return Removed;
}

llvm::Error writeFileAtomically(const std::string &Path, std::string_view Text, std::string *Note) {
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
  llvm::sys::path::append(Model, "." + llvm::sys::path::filename(Real).str() + std::string(TempMarker) +
                                     std::string(TempRandom, '%') + std::string(TempSuffix));
  int FD = -1;
  llvm::SmallString<256> Tmp;
  if (std::error_code EC = fs::createUniqueFile(Model, FD, Tmp, fs::OF_None, Perms))
    return fail("cannot create a temporary file beside it: " + EC.message());
  RemoveOnSignal Guard{std::string(Tmp)};
  // Held while the name exists (the descriptor is closed last): a later run's
  // removeStaleTemporaryFiles leaves a file a live writer holds alone.
  (void)::flock(FD, LOCK_EX | LOCK_NB);
  auto Cleanup = [&](const llvm::Twine &Why) {
    fs::remove(Tmp);
    ::close(FD);
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
  // The umask may have narrowed the mode createUniqueFile used: set it exactly. Once fsync has
  // put the text on the disk, closing cannot lose it: the descriptor (and its lock) is kept
  // until the name is gone.
  if (::fchmod(FD, static_cast<mode_t>(Perms)) != 0 || ::fsync(FD) != 0)
    return Cleanup(llvm::Twine("cannot write: ") + std::strerror(errno));
  if (BeforeReplacingForTests)
    BeforeReplacingForTests(std::string(Tmp));
  if (St.getLinkCount() > 1) {
    llvm::Error InPlace = writeInPlace(std::string(Real), Text);
    if (!InPlace) {
      fs::remove(Tmp);
      ::close(FD);
      return llvm::Error::success();
    }
    // The file may now hold part of the text: the rename below puts all of it in place.
    if (Note)
      *Note = "written by replacing the file, so its other hard links keep the old text (" +
              llvm::toString(std::move(InPlace)) + ")";
    else
      llvm::consumeError(std::move(InPlace));
  }
  if (std::error_code EC = fs::rename(Tmp, Real))
    return Cleanup("cannot replace the file: " + EC.message());
  ::close(FD);
  return llvm::Error::success();
}

} // namespace torchlint
