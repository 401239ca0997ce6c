// The worker's checkpoint and progress files: what they hold, what a reader refuses, and that a
// reader never sees one half-written.
#include <doctest/doctest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "emu/node/checkpoint_file.h"
#include "support/scratch_dir.h"
#include "util/error.h"

using namespace schedlab;
using namespace schedlab::emu;
namespace fs = std::filesystem;

namespace {

using TempFolder = schedlab::testing::ScratchDir;
using schedlab::testing::file_text;

void write_text(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

std::string input_error_of(const std::string& text) {
  try {
    parse_checkpoint(text, "ck/checkpoint");
  } catch (const util::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("Emu.CheckpointFile.round_trip_the_work_written_is_the_work_read_in_a_two_line_versioned_file") {
  TempFolder dir("roundtrip");
  CHECK_FALSE(read_checkpoint(dir.path.string()).has_value());
  write_checkpoint(dir.path.string(), 600);
  CHECK(file_text(dir.path / "checkpoint") == "schedlab checkpoint 1\nwork 600\n");
  CHECK(read_checkpoint(dir.path.string()) == 600);
  write_checkpoint(dir.path.string(), 1200);
  CHECK(read_checkpoint(dir.path.string()) == 1200);
  // Nothing but the checkpoint is left in the folder (no temporary files).
  CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 1);
}

TEST_CASE("Emu.CheckpointFile.refuses_anything_but_a_checkpoint_is_an_error_naming_the_file_and_line") {
  const struct {
    const char* text;
    const char* error;
  } cases[] = {
      {"", "ck/checkpoint:1: not a schedlab checkpoint"},
      {"schedlab checkpoint 2\nwork 5\n", "ck/checkpoint:1: not a schedlab checkpoint"},
      {"schedlab checkpoint 1\n", "ck/checkpoint:2: work: missing"},
      {"schedlab checkpoint 1\nwork\n", "ck/checkpoint:2: work: expected 'work N'"},
      {"schedlab checkpoint 1\nwork -5\n", "ck/checkpoint:2: work: -5 is out of range"},
      {"schedlab checkpoint 1\nwork 1.5\n", "ck/checkpoint:2: work: '1.5' is not a whole number"},
      {"schedlab checkpoint 1\nwork 600x\n", "ck/checkpoint:2: work: '600x' is not a number"},
      {"schedlab checkpoint 1\nwork 99999999999999999999\n", "ck/checkpoint:2: work: "},
      {"schedlab checkpoint 1\nwork 600\nmore\n", "ck/checkpoint:3: unexpected line"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    const std::string e = input_error_of(c.text);
    CHECK(e.rfind(c.error, 0) == 0);
  }
  CHECK(input_error_of("schedlab checkpoint 1\nwork 600\n").empty());
}

TEST_CASE("Emu.CheckpointFile.read_errors_a_folder_or_an_oversized_file_in_its_place_is_refused") {
  TempFolder dir("readerr");
  fs::create_directories(dir.path / "checkpoint");
  CHECK_THROWS_AS(read_checkpoint(dir.path.string()), util::InputError);
  fs::remove(dir.path / "checkpoint");
  write_text(dir.path / "checkpoint", "schedlab checkpoint 1\nwork 1\n" + std::string(10000, '#'));
  CHECK_THROWS_WITH_AS(read_checkpoint(dir.path.string()), doctest::Contains("larger than 4096 bytes"),
                       util::InputError);
}

TEST_CASE("Emu.CheckpointFile.write_errors_a_folder_that_is_not_there_is_an_environment_error") {
  TempFolder dir("writeerr");
  CHECK_THROWS_AS(write_checkpoint((dir.path / "missing").string(), 5), util::EnvironmentError);
  CHECK_THROWS_AS(write_progress((dir.path / "missing" / "p").string(), 5), util::EnvironmentError);
}

TEST_CASE("Emu.CheckpointFile.progress_one_number_and_a_newline_replaced_whole") {
  TempFolder dir("progress");
  const auto p = dir.path / "progress";
  write_progress(p.string(), 0);
  CHECK(file_text(p) == "0\n");
  write_progress(p.string(), 123456789);
  CHECK(file_text(p) == "123456789\n");
}

TEST_CASE("Emu.CheckpointFile.atomic_a_reader_looping_beside_a_writer_parses_every_version_it_sees") {
  TempFolder dir("atomic");
  std::atomic<bool> done{false};
  std::atomic<std::int64_t> written{0};
  // A long line makes a torn write visible if the rename were not atomic.
  std::thread writer([&] {
    for (std::int64_t w = 1; w <= 60; ++w) {
      write_checkpoint(dir.path.string(), w * 1000);
      write_progress((dir.path / "progress").string(), w * 1000);
      written = w;
    }
    done = true;
  });
  std::int64_t reads = 0, last = 0, failures = 0, regressions = 0;
  while (!done || reads == 0) {
    try {
      if (auto v = read_checkpoint(dir.path.string())) {
        if (*v < last || *v % 1000 != 0) ++regressions;
        last = *v;
      }
      const std::string p = file_text(dir.path / "progress");
      if (!p.empty() && (p.back() != '\n' || std::stoll(p) % 1000 != 0)) ++failures;
    } catch (const std::exception&) {
      ++failures;
    }
    ++reads;
  }
  writer.join();
  CHECK(failures == 0);
  CHECK(regressions == 0);
  CHECK(reads > 10);
  CHECK(read_checkpoint(dir.path.string()) == 60000);
  // Only the two files remain: every temporary file was renamed.
  CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 2);
}
