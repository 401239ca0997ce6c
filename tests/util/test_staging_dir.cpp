// Output safety: results folders replace only schedlab's own folders, atomically, and
// output files appear only when complete.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "util/error.h"
#include "util/staging_dir.h"

using namespace schedlab;
namespace fs = std::filesystem;

namespace {
// A fresh folder under the system's temporary folder, removed at the end of the test.
struct TempBase {
  fs::path path;
  explicit TempBase(const std::string& name)
      : path(fs::temp_directory_path() / ("schedlab-" + name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempBase() { fs::remove_all(path); }
};

std::string read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

// The message of the InputError that `f` throws ("" when it throws none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const util::InputError& e) {
    return e.what();
  }
  return "";
}

// A process id that is certainly not running: a child that has exited and been reaped.
pid_t dead_pid() {
  pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  return pid;
}

// Changes the working folder for one scope.
struct InFolder {
  fs::path old = fs::current_path();
  explicit InFolder(const fs::path& p) { fs::current_path(p); }
  ~InFolder() { fs::current_path(old); }
};
}  // namespace

TEST_CASE("Util.StagingDir.a_folder_with_user_files_is_refused_and_kept") {
  TempBase base("staging-user");
  const fs::path target = base.path / "precious";
  fs::create_directories(target);
  write(target / "thesis.tex", "important");
  for (bool force : {false, true}) {
    CAPTURE(force);
    std::string msg = error_of([&] { util::StagingDir d(target.string(), force); });
    CHECK(msg.find(target.string() + ": --out: holds files that schedlab did not write") == 0);
    CHECK(msg.find("--force") != std::string::npos);
  }
  CHECK(read(target / "thesis.tex") == "important");
  // Nothing was staged beside it either.
  CHECK(std::distance(fs::directory_iterator(base.path), fs::directory_iterator()) == 1);
}

TEST_CASE("Util.StagingDir.an_empty_folder_needs_force") {
  TempBase base("staging-empty");
  const fs::path target = base.path / "empty";
  fs::create_directories(target);
  CHECK(error_of([&] { util::StagingDir d(target.string()); }).find("use --force") != std::string::npos);
  {
    util::StagingDir d(target.string(), true);
    write(d.file("jobs.csv"), "x");
    d.commit();
  }
  CHECK(read(target / "jobs.csv") == "x");
  CHECK(util::is_results_folder(target.string()));
}

TEST_CASE("Util.StagingDir.unsafe_targets_are_refused_even_with_force") {
  TempBase base("staging-unsafe");
  const fs::path cwd = base.path / "a" / "b";
  fs::create_directories(cwd);
  write(cwd / "mine.txt", "keep");
  InFolder in(cwd);
  const std::string cases[] = {".", "./", "..", "../..", "/", cwd.string(), (base.path / "a").string()};
  for (const auto& target : cases) {
    CAPTURE(target);
    for (bool force : {false, true}) {
      std::string msg = error_of([&] { util::StagingDir d(target, force); });
      CHECK(msg.find("--out: is the") != std::string::npos);
    }
  }
  // The home folder, even when it is not above the current folder.
  const fs::path home = base.path / "home";
  fs::create_directories(home);
  const char* old_home = std::getenv("HOME");
  std::string saved = old_home ? old_home : "";
  ::setenv("HOME", home.c_str(), 1);
  std::string msg = error_of([&] { util::StagingDir d(home.string(), true); });
  if (old_home)
    ::setenv("HOME", saved.c_str(), 1);
  else
    ::unsetenv("HOME");
  CHECK(msg.find("is the home folder") != std::string::npos);
  CHECK(read(cwd / "mine.txt") == "keep");
  // A symbolic link (to a results folder or not) and a plain file.
  fs::create_directories(base.path / "elsewhere");
  fs::create_directory_symlink(base.path / "elsewhere", base.path / "link");
  CHECK(error_of([&] { util::StagingDir d((base.path / "link").string(), true); }).find("symbolic link") !=
        std::string::npos);
  write(base.path / "file", "x");
  CHECK(error_of([&] { util::StagingDir d((base.path / "file").string(), true); }).find("is not a folder") !=
        std::string::npos);
  CHECK(read(base.path / "file") == "x");
}

TEST_CASE("Util.StagingDir.a_results_folder_is_replaced_whole_and_only_on_commit") {
  TempBase base("staging-replace");
  const fs::path target = base.path / "results";
  {
    util::StagingDir d(target.string());
    write(d.file("a.txt"), "old");
    d.commit();
  }
  CHECK(read(target / util::kResultsMarker) == std::string("schedlab ") + SCHEDLAB_VERSION + " results folder\n");
  {
    // A run that fails before commit leaves the old results as they were.
    util::StagingDir d(target.string());
    write(d.file("a.txt"), "new");
  }
  CHECK(read(target / "a.txt") == "old");
  {
    util::StagingDir d(target.string() + "/");
    write(d.file("b.txt"), "new");
    // While staging, the marker names the writing process.
    CHECK(read(fs::path(d.path()) / util::kResultsMarker).find("process " + std::to_string(::getpid())) !=
          std::string::npos);
    d.commit();
  }
  CHECK_FALSE(fs::exists(target / "a.txt"));
  CHECK(read(target / "b.txt") == "new");
  // Only the results folder remains: no staging or aside folder.
  CHECK(std::distance(fs::directory_iterator(base.path), fs::directory_iterator()) == 1);
}

TEST_CASE("Util.StagingDir.staging_folders_of_dead_processes_only_are_removed") {
  TempBase base("staging-stale");
  const pid_t dead = dead_pid(), dead2 = dead_pid(), dead3 = dead_pid();
  const pid_t alive = ::getppid();
  auto staged = [&](const std::string& name, bool marked) {
    fs::path p = base.path / name;
    fs::create_directories(p);
    write(p / "jobs.csv", "partial");
    if (marked) write(p / util::kResultsMarker, "schedlab 0.0.0 results folder, being written by process 1\n");
    return p;
  };
  const fs::path dead_tmp = staged(".results.tmp-" + std::to_string(dead), true);
  const fs::path dead_old = staged(".results.old-" + std::to_string(dead), true);
  const fs::path live_tmp = staged(".results.tmp-" + std::to_string(alive), true);
  const fs::path unmarked = staged(".results.tmp-" + std::to_string(dead2), false);
  const fs::path other = staged(".other.tmp-" + std::to_string(dead), true);
  fs::create_directories(base.path / (".results.tmp-" + std::to_string(dead3)));  // empty: killed early
  {
    util::StagingDir d((base.path / "results").string());
    d.commit();
  }
  CHECK_FALSE(fs::exists(dead_tmp));
  CHECK_FALSE(fs::exists(dead_old));
  CHECK_FALSE(fs::exists(base.path / (".results.tmp-" + std::to_string(dead3))));
  CHECK(fs::exists(live_tmp / "jobs.csv"));
  CHECK(fs::exists(unmarked / "jobs.csv"));  // not marked: not ours to remove
  CHECK(fs::exists(other / "jobs.csv"));     // beside another target
}

TEST_CASE("Util.StagedFile.appears_only_when_complete") {
  TempBase base("staged-file");
  const fs::path out = base.path / "trace.csv";
  write(out, "before");
  {
    util::StagedFile f(out.string());
    f.stream() << "half";
  }  // not committed: the old file stays, no temporary is left
  CHECK(read(out) == "before");
  CHECK(std::distance(fs::directory_iterator(base.path), fs::directory_iterator()) == 1);
  {
    util::StagedFile f(out.string());
    f.stream() << "after";
    CHECK(read(out) == "before");
    f.commit();
  }
  CHECK(read(out) == "after");
  CHECK(std::distance(fs::directory_iterator(base.path), fs::directory_iterator()) == 1);
  // Through a symbolic link, the file it names is replaced and the link kept.
  fs::create_symlink(out, base.path / "link.csv");
  {
    util::StagedFile f((base.path / "link.csv").string());
    f.stream() << "linked";
    f.commit();
  }
  CHECK(fs::is_symlink(base.path / "link.csv"));
  CHECK(read(out) == "linked");
  CHECK(error_of([&] { util::StagedFile f(base.path.string()); }).find("is a folder") != std::string::npos);
  CHECK(error_of([&] { util::StagedFile f((base.path / "no_such" / "x.csv").string()); }).find("cannot write") !=
        std::string::npos);
}
