// `schedlab trace generate|stats|convert`.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "cli/commands.h"
#include "cli/number_option.h"
#include "config/scenario.h"
#include "util/yaml_util.h"
#include "util/error.h"
#include "util/staging_dir.h"
#include "workload/generator.h"
#include "workload/native_csv.h"
#include "workload/trace_format.h"
#include "workload/trace_resample.h"
#include "workload/trace_stats.h"

namespace schedlab::cli {

namespace {
void write_trace(workload::JobSource& src, const std::string& out_path) {
  if (out_path == "-") {
    workload::write_native_header(std::cout);
    workload::JobSpec j;
    while (src.next(j)) workload::write_native_row(std::cout, j, src.strings());
    return;
  }
  // A bad row found half-way leaves neither a partial file nor a clobbered OUT.
  util::StagedFile file(out_path, "--out", workload::kNativeHeaderStart);
  workload::write_native_header(file.stream());
  workload::JobSpec j;
  while (src.next(j)) workload::write_native_row(file.stream(), j, src.strings());
  file.commit();
}
}  // namespace

void add_trace_command(CLI::App& app, int& exit_code) {
  auto* trace = app.add_subcommand("trace", "Generate, summarise and convert job traces");
  trace->require_subcommand(1);

  auto* gen = trace->add_subcommand("generate", "Write a synthetic trace in the native CSV format");
  struct GenOpts {
    workload::GeneratorConfig g;
    std::uint64_t seed = 1;
    std::string out = "-";
    std::string like;
    std::string like_format = "auto";
    double load = 1.0;
  };
  auto go = std::make_shared<GenOpts>();
  add_number_option(gen, "--jobs", go->g.jobs, "Number of jobs")->capture_default_str();
  add_number_option(gen, "--seed", go->seed, "Random seed")->capture_default_str();
  add_number_option(gen, "--rate", go->g.arrival_rate_per_hour, "Mean arrivals per hour (Poisson)")->capture_default_str();
  add_number_option(gen, "--duration-median", go->g.duration_median_s, "Median job duration, s (log-normal)")
      ->capture_default_str();
  add_number_option(gen, "--duration-sigma", go->g.duration_sigma, "Sigma of ln(duration)")->capture_default_str();
  add_number_option(gen, "--sizes", go->g.gpu_sizes, "GPU counts to draw from")->capture_default_str();
  add_number_option(gen, "--weights", go->g.gpu_size_weights, "Weight of each GPU count")->capture_default_str();
  add_number_option(gen, "--gpus-per-host", go->g.gpus_per_host, "Task size of multi-host jobs")->capture_default_str();
  gen->add_option("--models", go->g.models, "Requested GPU models (\"any\" for no request)");
  add_number_option(gen, "--model-weights", go->g.model_weights, "Weight of each requested model");
  add_number_option(gen, "--cpu-jobs", go->g.cpu_job_share, "Share of jobs that need no GPU (CPU jobs), 0 to 1")
      ->capture_default_str();
  add_number_option(gen, "--cpu-sizes", go->g.cpu_sizes, "CPUs of a CPU job, to draw from")->capture_default_str();
  add_number_option(gen, "--cpu-weights", go->g.cpu_size_weights, "Weight of each CPU count")->capture_default_str();
  add_number_option(gen, "--mem-per-cpu", go->g.mem_gb_per_cpu, "GB of memory per CPU of a CPU job")->capture_default_str();
  add_number_option(gen, "--services", go->g.services, "Services mixed in (1-GPU instances, wanted to the end)")
      ->capture_default_str();
  add_number_option(gen, "--service-instances", go->g.service_instances_max, "Most instances of a generated service")
      ->capture_default_str();
  add_number_option(gen, "--cron", go->g.cron_entries, "Cron entries mixed in (a 1-GPU job every --cron-period)")
      ->capture_default_str();
  add_number_option(gen, "--cron-period", go->g.cron_period_s, "Seconds between a cron entry's jobs")->capture_default_str();
  add_number_option(gen, "--cron-duration", go->g.cron_duration_s, "Duration of a cron job, s")->capture_default_str();
  gen->add_option("-o,--out", go->out, "Output file (- for stdout)")->capture_default_str();
  gen->add_option("--like", go->like,
                  "Resample whole jobs (shape, duration, user, ...) of this trace, keeping its GPU demand per day");
  gen->add_option("--like-format", go->like_format, "Format of the --like trace")->capture_default_str();
  add_number_option(gen, "--load", go->load, "With --like: GPU-hours per day relative to the trace's")
      ->capture_default_str();
  gen->callback([gen, go, &exit_code] {
    if (!go->like.empty()) {
      // The trace gives arrivals, durations, shapes and labels: a distribution option given
      // beside --like could have no effect, so it is refused rather than ignored.
      for (const auto* opt : gen->get_options())
        if (opt->count() && !opt->check_name("--like") && !opt->check_name("--like-format") &&
            !opt->check_name("--load") && !opt->check_name("--jobs") && !opt->check_name("--seed") &&
            !opt->check_name("--out") && !opt->check_name("--help"))
          throw util::InputError("", 0, opt->get_name(),
                                 "has no effect with --like (the trace gives arrivals, durations, shapes and users); "
                                 "only --jobs, --load and --seed apply");
      workload::TraceOptions options;
      options.format = go->like_format;
      options.format_field = "--like-format";
      util::Notices notices;
      options.notices = &notices;
      workload::ResampleReport report;
      auto src = workload::make_resampler(workload::open_trace(go->like, options), go->load,
                                          gen->count("--jobs") ? go->g.jobs : 0, go->seed, report);
      fmt::print(stderr, "{}\n", report.describe());
      write_trace(*src, go->out);
      if (go->out != "-") fmt::print(stderr, "wrote {} jobs to {}\n", report.jobs, go->out);
      exit_code = 0;
      return;
    }
    if (gen->count("--load"))
      throw util::InputError("--load", 0, "", "--load scales a trace's demand: use it with --like");
    auto src = workload::make_generator(go->g, go->seed);
    write_trace(*src, go->out);
    if (go->out != "-") fmt::print(stderr, "wrote {} jobs to {}\n", go->g.jobs, go->out);
    exit_code = 0;
  });

  auto* stats = trace->add_subcommand("stats", "Summarise a trace");
  struct StatsOpts {
    std::string file;
    workload::TraceOptions options;
    std::vector<std::string> args;
  };
  auto so = std::make_shared<StatsOpts>();
  so->options.format_field = "--trace-format";  // messages name the option the user typed
  so->options.args_field = "--arg";
  auto output = std::make_shared<std::string>("text");
  stats->add_option("file", so->file, "Trace file")->required();
  stats->add_option("-t,--trace-format", so->options.format, "Trace format (default: detect)")->capture_default_str();
  // --format is the output, as on run, compare and sweep collect; a trace format's name there
  // still means the trace format (it did before --trace-format existed).
  stats->add_option("--format", *output, "What standard output holds: text, or json (the figures, for scripts)")
      ->capture_default_str();
  stats->add_flag("--skip-bad-rows", so->options.skip_bad_rows, "Count and skip unreadable rows");
  stats->add_option("--skipped", so->options.skipped_file,
                    "Write the line and reason of every row left out to FILE (CSV)")
      ->type_name("FILE");
  stats->add_option("--arg", so->args, "Format setting KEY=VALUE (e.g. gpus_per_processor=1)");
  stats->callback([so, output, &exit_code] {
    for (const auto& a : so->args) {
      auto eq = a.find('=');
      if (eq == std::string::npos) throw util::InputError("--arg", 0, a, "expected KEY=VALUE");
      so->options.args.values[a.substr(0, eq)] = util::ArgValue(a.substr(eq + 1));
    }
    if (*output != "text" && *output != "json") {
      const auto& formats = workload::trace_formats();
      if (std::none_of(formats.begin(), formats.end(), [&](const auto& f) { return f.name == *output; }))
        throw util::InputError("--format", 0, *output, "expected text or json (the trace's format is --trace-format)");
      so->options.format = *output;
      so->options.format_field = "--format";
      *output = "text";
    }
    util::Notices notices;
    so->options.notices = &notices;
    auto src = workload::open_trace(so->file, so->options);
    auto s = workload::compute_trace_stats(*src);
    fmt::print("{}", *output == "json" ? workload::trace_stats_json(s, so->file)
                                       : workload::format_trace_stats(s, so->file));
    exit_code = 0;
  });

  auto* convert = trace->add_subcommand("convert", "Convert a trace to the native CSV format");
  auto co = std::make_shared<StatsOpts>();
  co->options.format_field = "--trace-format";
  co->options.args_field = "--arg";
  auto cout_path = std::make_shared<std::string>("-");
  convert->add_option("file", co->file, "Trace file")->required();
  convert->add_option("-t,--trace-format,--format", co->options.format, "Input format (default: detect; --format is "
                                                                       "the older name)")
      ->capture_default_str();
  convert->add_flag("--skip-bad-rows", co->options.skip_bad_rows, "Count and skip unreadable rows");
  convert->add_option("--arg", co->args, "Format setting KEY=VALUE");
  convert->add_option("-o,--out", *cout_path, "Output file (- for stdout)")->capture_default_str();
  convert->callback([co, cout_path, &exit_code] {
    for (const auto& a : co->args) {
      auto eq = a.find('=');
      if (eq == std::string::npos) throw util::InputError("--arg", 0, a, "expected KEY=VALUE");
      co->options.args.values[a.substr(0, eq)] = util::ArgValue(a.substr(eq + 1));
    }
    util::Notices notices;
    co->options.notices = &notices;
    auto src = workload::open_trace(co->file, co->options);
    write_trace(*src, *cout_path);
    if (src->skipped_rows()) fmt::print(stderr, "skipped {} rows\n", src->skipped_rows());
    exit_code = 0;
  });
}

}  // namespace schedlab::cli
