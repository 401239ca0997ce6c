// `schedlab calibrate`: fit a calibration profile from nccl-tests logs, or measure the local GPUs.
#include <fmt/format.h>

#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "calib/alpha_beta_fit.h"
#include "calib/gpu_measure.h"
#include "calib/nccl_tests_log.h"
#include "cli/commands.h"
#include "cli/number_option.h"
#include "perf/calibration_profile.h"
#include "util/error.h"
#include "util/parse.h"
#include "util/staging_dir.h"
#include "util/suggest.h"

namespace schedlab::cli {
namespace {

struct CalibrateOptions {
  std::vector<std::string> logs;
  std::string tier;
  int ranks = 0;
  std::string out;
  std::string nccl_lib;
  std::string max_bytes = "1G";
  int iters = 20;
  int warmup = 5;
  std::string gpu, host;  // provenance, when the logs do not say
};

// The command line as typed, for the profile's provenance.
std::string command_line() {
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  std::string cur;
  for (char c : all) {
    if (c == '\0') {
      args.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) args.push_back(cur);
  if (args.empty()) return "schedlab calibrate";
  args[0] = "schedlab";
  std::string line;
  for (const auto& a : args) {
    bool plain = !a.empty() && a.find_first_of(" \t'\"$\\") == std::string::npos;
    line += (line.empty() ? "" : " ") + (plain ? a : "'" + a + "'");
  }
  return line;
}

std::string today_utc() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

perf::LinkTier tier_option(const std::string& name) {
  auto tier = perf::link_tier_from_name(name);
  if (!tier) throw util::InputError("", 0, "--tier", util::unknown_name_message("tier", name, perf::link_tier_names()));
  return *tier;
}

// "1048576", "64K", "256M", "1G" (binary multiples, as nccl-tests' -e takes them).
double bytes_option(const std::string& text) {
  std::string_view s = util::trim(text);
  double mult = 1;
  if (!s.empty()) {
    switch (s.back()) {
      case 'K':
      case 'k':
        mult = 1024.0;
        break;
      case 'M':
      case 'm':
        mult = 1024.0 * 1024;
        break;
      case 'G':
      case 'g':
        mult = 1024.0 * 1024 * 1024;
        break;
      default:
        break;
    }
    if (mult != 1) s.remove_suffix(1);
  }
  std::int64_t v;
  if (!util::try_parse_int(s, v) || v * mult < 8)
    throw util::InputError("", 0, "--max-bytes",
                           fmt::format("'{}' is not a size of at least 8 bytes (e.g. 1G, 256M)", text));
  return static_cast<double>(v) * mult;
}

void emit(const perf::CalibrationProfile& profile, const std::string& out_path) {
  // A profile is written only if it reads back: a measured figure beyond the sense ranges a
  // profile holds (docs/calibration.md) would make every scenario naming it fail.
  std::ostringstream text;
  perf::write_profile(profile, text);
  try {
    perf::load_profile_text(text.str(), out_path.empty() ? "the profile" : out_path);
  } catch (const util::InputError& e) {
    throw util::EnvironmentError(
        fmt::format("calibrate: the measurements give a profile that does not read back, so "
                    "nothing was written: {}",
                    e.what()));
  }
  if (out_path.empty()) {
    std::cout << text.str();
    return;
  }
  util::StagedFile f(out_path, "--out", perf::kProfileFirstLine);
  f.stream() << text.str();
  f.commit();
}

void run_import(const CalibrateOptions& o) {
  if (o.tier.empty())
    throw util::InputError("", 0, "--tier",
                           "required with --from-nccl-tests: which link the logs measured; valid: " +
                               util::join(perf::link_tier_names(), ", "));
  calib::ImportOptions io;
  io.tier = tier_option(o.tier);
  io.ranks_override = o.ranks;
  io.command = command_line();
  io.date = today_utc();
  std::vector<calib::NcclTestsLog> logs;
  for (const auto& path : o.logs) logs.push_back(calib::parse_nccl_tests_log(path));
  calib::AlphaBetaFit fit;
  perf::CalibrationProfile profile = calib::profile_from_nccl_tests(logs, io, &fit);
  if (!o.gpu.empty()) profile.provenance.gpu = o.gpu;
  if (!o.host.empty()) profile.provenance.host = o.host;
  std::ostream& report = o.out.empty() ? std::cerr : std::cout;
  for (const auto& log : logs)
    report << fmt::format("{}: {} rows, {} ranks (from {}), {}\n", log.path, log.rows.size(), log.ranks,
                          log.ranks_source,
                          log.has_root_column ? "nccl-tests >= 2.13 table" : "nccl-tests < 2.13 table");
  calib::print_fit_report(fit, o.tier, report);
  emit(profile, o.out);
  if (!o.out.empty()) report << "wrote " << o.out << "\n";
}

void run_measure(const CalibrateOptions& o) {
  if (o.iters < 1) throw util::InputError("", 0, "--iters", fmt::format("{} must be >= 1", o.iters));
  if (o.warmup < 0) throw util::InputError("", 0, "--warmup", fmt::format("{} must be >= 0", o.warmup));
  perf::LinkTier tier = o.tier.empty() ? perf::LinkTier::nvlink : tier_option(o.tier);
  calib::GpuMeasureOptions mo;
  mo.nccl_lib = o.nccl_lib;
  mo.max_bytes = bytes_option(o.max_bytes);
  mo.iters = o.iters;
  mo.warmup = o.warmup;
  std::ostream& report = o.out.empty() ? std::cerr : std::cout;
  mo.progress = &report;
  calib::GpuReport rep = calib::measure_local_gpus(mo);
  calib::AlphaBetaFit fit;
  perf::CalibrationProfile profile = calib::profile_from_gpu_report(rep, tier, command_line(), &fit);
  if (profile.has_tier(tier))
    calib::print_fit_report(fit, perf::link_tier_name(tier), report);
  else
    report << "one GPU: allreduce over one rank crosses no link, so no tier is fitted (import nccl-tests logs "
              "from a multi-GPU run with --from-nccl-tests)\n";
  emit(profile, o.out);
  if (!o.out.empty()) report << "wrote " << o.out << "\n";
}

}  // namespace

void add_calibrate_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<CalibrateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate",
      "Write a calibration profile (alpha/beta per link tier, GEMM TFLOP/s): fitted from nccl-tests all_reduce_perf "
      "logs, or measured on the local GPUs (CUDA, NCCL, cuBLAS)");
  cmd->add_option("--from-nccl-tests", o->logs, "all_reduce_perf output(s) to fit instead of measuring")
      ->expected(1, -1);
  cmd->add_option("--tier", o->tier,
                  "link tier the allreduce crossed: nvlink, pcie, nic, rack, spine "
                  "(required with --from-nccl-tests; measuring: default nvlink)");
  add_number_option(cmd, "--ranks", o->ranks, "number of ranks in the logs, when they do not say", {1, 1 << 20});
  cmd->add_option("--gpu", o->gpu, "GPU name for the profile's provenance, when the logs do not say");
  cmd->add_option("--host", o->host, "host name for the profile's provenance, when the logs do not say");
  cmd->add_option("-o,--out", o->out, "profile YAML to write (default: standard output, report on standard error)");
  cmd->add_option("--nccl-lib", o->nccl_lib, "path of libnccl.so.2 (default: LD_LIBRARY_PATH, then pip wheels)");
  cmd->add_option("--max-bytes", o->max_bytes, "largest allreduce size per GPU, e.g. 1G, 256M (default 1G)");
  add_number_option(cmd, "--iters", o->iters, "timed iterations per size (default 20)");
  add_number_option(cmd, "--warmup", o->warmup, "untimed iterations before them (default 5)");
  cmd->callback([o, &exit_code] {
    if (!o->logs.empty())
      run_import(*o);
    else
      run_measure(*o);
    exit_code = 0;
  });
}

}  // namespace schedlab::cli
