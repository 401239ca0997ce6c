// The guards at the edges that are not a parser's: numbers written as text (YAML scalars and
// command-line values share one conversion), names that become folder names, and output
// files that must never replace an input or a file schedlab did not write.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "util/checked.h"
#include "util/error.h"
#include "util/file_bytes.h"
#include "util/input_files.h"
#include "util/path_name.h"
#include "util/staging_dir.h"

using namespace schedlab;
namespace fs = std::filesystem;

namespace {
// The message `f` throws as an InputError ("" when it throws none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const util::InputError& e) {
    return e.what();
  }
  return "";
}

struct Folder {
  fs::path path;
  explicit Folder(const std::string& name)
      : path(fs::temp_directory_path() / ("schedlab-guards-" + name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Folder() { fs::remove_all(path); }
};

void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }
std::string read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}
}  // namespace

TEST_CASE("Util.CheckedNumber.unsigned_takes_no_sign") {
  const std::string file = "x.yaml";
  util::FieldContext at{file, 3, "seed"};
  CHECK(util::checked_number<std::uint64_t>("18446744073709551615", at) == UINT64_MAX);
  CHECK(util::checked_number<std::uint64_t>(" +7 ", at) == 7);
  CHECK(error_of([&] { util::checked_number<std::uint64_t>("-1", at); }) ==
        "x.yaml:3: seed: expected a whole number from 0 to 18446744073709551615, got '-1'");
  CHECK(error_of([&] { util::checked_number<std::uint64_t>("99999999999999999999999", at); }) ==
        "x.yaml:3: seed: 99999999999999999999999 is out of range [0, 18446744073709551615]");
  CHECK(error_of([&] { util::checked_number<std::uint64_t>("", at); }) == "x.yaml:3: seed: missing value");
  CHECK(error_of([&] { util::checked_number<std::uint32_t>("4294967296", at); }) ==
        "x.yaml:3: seed: 4294967296 is out of range [0, 4294967295]");
  CHECK(error_of([&] { util::checked_number<std::uint32_t>("1.5", at); }) ==
        "x.yaml:3: seed: expected a whole number from 0 to 4294967295, got '1.5'");
}

TEST_CASE("Util.CheckedNumber.signed_and_real") {
  const std::string file;
  util::FieldContext at{file, 0, "--jobs"};
  CHECK(util::checked_number<int>("-5", at) == -5);
  CHECK(error_of([&] { util::checked_number<int>("3000000000", at); }) ==
        "--jobs: 3000000000 is out of range [-2147483648, 2147483647]");
  CHECK(error_of([&] { util::checked_number<std::int64_t>("1e30", at); }) ==
        "--jobs: 1e30 is out of range [-9223372036854775808, 9223372036854775807]");
  CHECK(error_of([&] { util::checked_number<int>("abc", at); }).starts_with("--jobs: expected a whole number"));
  CHECK(util::checked_number<double>("2.5", at, 0.0, 10.0) == 2.5);
  CHECK(error_of([&] { util::checked_number<double>("inf", at); }) == "--jobs: expected a number, got 'inf'");
  CHECK(error_of([&] { util::checked_number<double>("11", at, 0.0, 10.0); }) == "--jobs: 11 is out of range [0, 10]");
}

TEST_CASE("Util.PathName.one_folder_name") {
  for (const char* ok : {"quickstart", "las-v2", "a b", "x.y", "ünïcode"}) CHECK(util::path_name_problem(ok).empty());
  CHECK(util::path_name_problem("").find("empty") != std::string::npos);
  CHECK(util::path_name_problem("../../x").find("path separator") != std::string::npos);
  CHECK(util::path_name_problem("a/b").find("path separator") != std::string::npos);
  CHECK(util::path_name_problem("a\\b").find("path separator") != std::string::npos);
  CHECK(util::path_name_problem("..").find("starts with '.'") != std::string::npos);
  CHECK(util::path_name_problem(".hidden").find("starts with '.'") != std::string::npos);
  CHECK(util::path_name_problem(std::string("a\0b", 3)).find("control character") != std::string::npos);
  CHECK(util::path_name_problem("a\x1b[2Jb").find("control character") != std::string::npos);
  CHECK(util::path_name_problem(std::string(util::kMaxPathNameBytes + 1, 'x')).find("bytes long") != std::string::npos);
  const std::string file = "s.yaml";
  CHECK(error_of([&] {
          util::check_path_name("../x", util::FieldContext{file, 2, "name"});
        }).starts_with("s.yaml:2: name: '../x' holds a path separator"));
}

TEST_CASE("Util.StagedFile.never_an_input") {
  Folder dir("input");
  const fs::path trace = dir.path / "trace.csv";
  write(trace, "id,submit_s,duration_s,tasks\n0,0,1,1\n");
  { util::FileBytes reading(trace.string()); }  // a reader notes what it opens
  CHECK(util::is_input_file(trace.string()));
  CHECK(util::is_input_file((dir.path / "." / "trace.csv").string()));  // any spelling
  fs::create_symlink(trace, dir.path / "link.csv");
  CHECK(error_of([&] {
          util::StagedFile f((dir.path / "link.csv").string(), "--events");
        }).ends_with("--events: is an input of this run; give another file name"));
  CHECK(error_of([&] {
          util::StagedFile f(trace.string(), "--events");
        }).ends_with("is an input of this run; give another file name"));
  CHECK(read(trace) == "id,submit_s,duration_s,tasks\n0,0,1,1\n");
}

TEST_CASE("Util.StagedFile.only_files_schedlab_wrote") {
  Folder dir("ours");
  const fs::path notes = dir.path / "notes.txt", log = dir.path / "events.csv", empty = dir.path / "empty.csv";
  write(notes, "my own notes\n");
  write(log, "time_s,job,event\n1,2,start\n");
  write(empty, "");
  CHECK(error_of([&] {
          util::StagedFile f(notes.string(), "--events", "time_s,job,event");
        }).find("exists and is not a file schedlab wrote (it does not start with 'time_s,job,event')") !=
        std::string::npos);
  CHECK(read(notes) == "my own notes\n");
  for (const fs::path& ok : {log, empty, dir.path / "new.csv"}) {
    util::StagedFile f(ok.string(), "--events", "time_s,job,event");
    f.stream() << "time_s,job,event\n";
    f.commit();
    CHECK(read(ok) == "time_s,job,event\n");
  }
}

TEST_CASE("Util.StagedFile.flush_checked_finds_a_full_disk") {
  if (!fs::exists("/dev/full")) return;
  util::StagedFile f("/dev/full", "--events");
  f.stream() << std::string(1 << 16, 'x');
  CHECK(error_of([&] { f.flush_checked(); }).starts_with("/dev/full: --events: write failed"));
}
