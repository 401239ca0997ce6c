// Replays every file under tests/fuzz/regressions/<target>/ through the fuzz entry point of
// <target> (the same function libFuzzer calls): each once crashed, hung, broke an invariant or
// escaped as an unexpected exception. Bad input answered with InputError passes.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "config/cluster_config.h"
#include "config/scenario.h"
#include "emu/controller/api.h"
#include "emu/controller/journal.h"
#include "fuzz/fuzz_targets.h"
#include "sim/failures.h"
#include "util/line_reader.h"

namespace fs = std::filesystem;

namespace {

fs::path regressions_dir() { return fs::path(SCHEDLAB_SOURCE_DIR) / "tests" / "fuzz" / "regressions"; }
fs::path seeds_dir() { return fs::path(SCHEDLAB_SOURCE_DIR) / "tests" / "fuzz" / "seeds"; }

std::string read_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::vector<fs::path> sorted_entries(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("Fuzz.Regressions.every_folder_names_a_target") {
  for (const auto& dir : sorted_entries(regressions_dir())) {
    CAPTURE(dir.string());
    if (!fs::is_directory(dir)) continue;  // README.md
    CHECK(schedlab::fuzz::find_target(dir.filename().string()) != nullptr);
  }
}

TEST_CASE("Fuzz.Regressions.replay") {
  int replayed = 0;
  for (const auto& target : schedlab::fuzz::targets()) {
    fs::path dir = regressions_dir() / std::string(target.name);
    if (!fs::is_directory(dir)) continue;
    for (const auto& file : sorted_entries(dir)) {
      CAPTURE(file.string());
      std::ifstream in(file, std::ios::binary);
      REQUIRE(in.is_open());
      std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      CHECK_NOTHROW(target.entry(bytes.data(), bytes.size()));
      ++replayed;
    }
  }
  MESSAGE(replayed << " fuzz regression inputs replayed");
}

TEST_CASE("Fuzz.Sandbox.seed_paths_resolve") {
  // The sandbox mirrors the repository so that the seeds' relative paths resolve; if it did not,
  // every fuzz input would end as a cheap "file not found" and fuzzing would test nothing.
  for (std::string seed : {"tests/fixtures/scenarios/tiny.yaml", "scenarios/quickstart.yaml",
                           "tests/e2e/fixtures/base.yaml"}) {
    CAPTURE(seed);
    std::ifstream in(fs::path(SCHEDLAB_SOURCE_DIR) / seed, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::string path = schedlab::fuzz::write_input("tests/fixtures/scenarios/fuzz-input.yaml",
                                                   reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
    CHECK_NOTHROW(schedlab::config::load_scenario(path));
  }
}

TEST_CASE("Fuzz.Seeds.replay") {
  // The seeds of tests/fuzz/seeds/<target>/ are not findings either (libFuzzer would stop on one).
  for (const auto& dir : sorted_entries(seeds_dir())) {
    CAPTURE(dir.string());
    const auto* target = schedlab::fuzz::find_target(dir.filename().string());
    REQUIRE(target != nullptr);
    for (const auto& file : sorted_entries(dir)) {
      CAPTURE(file.string());
      const std::string bytes = read_bytes(file);
      CHECK_NOTHROW(target->entry(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
    }
  }
}

TEST_CASE("Fuzz.Seeds.accepted_by_their_parsers") {
  // A seed refused at once would leave the fuzzer to find the format by chance: each of these
  // is a valid input that reaches the code behind the parser.
  const fs::path seeds = seeds_dir();
  const auto journal = schedlab::emu::read_journal((seeds / "journal" / "journal.jsonl").string());
  CHECK(journal.anchor.has_value());
  CHECK(journal.batches.size() == 3);  // the cut-short last line is left out
  for (const char* name : {"submit.txt", "submit_least.txt"}) {
    CAPTURE(name);
    const std::string text = read_bytes(seeds / "api_body" / name);
    const auto catalog = schedlab::config::load_catalog(std::string(SCHEDLAB_SOURCE_DIR) + "/configs/gpus.yaml");
    CHECK(schedlab::emu::parse_submit_body(text.substr(text.find('\n') + 1), catalog).ok());
  }
  const std::string scale = read_bytes(seeds / "api_body" / "scale.txt");
  CHECK(schedlab::emu::parse_scale_body(scale.substr(scale.find('\n') + 1)).ok());
  const auto& small = schedlab::fuzz::small_cluster();
  const schedlab::cluster::Topology topo(small.spec, small.catalog);
  for (const char* name : {"tiny.csv", "no_gpu_column.csv"}) {
    CAPTURE(name);
    CHECK(schedlab::sim::check_failure_trace((seeds / "failure_trace" / name).string(), topo) >= 2);
  }
  for (const auto& file : sorted_entries(seeds / "gzip")) {
    CAPTURE(file.string());
    schedlab::util::LineReader reader(file.string());
    std::string_view line;
    long lines = 0;
    CHECK_NOTHROW(while (reader.next(line)) ++lines);
  }
}
