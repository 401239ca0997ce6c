// `schedlab compare`: one scenario under several variants, side by side.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <set>
#include <thread>

#include <unistd.h>

#include "cli/commands.h"
#include "cli/number_option.h"
#include "cli/common.h"
#include "metrics/compare_table.h"
#include "metrics/writers.h"
#include "run/packing_run.h"
#include "run/scenario_run.h"
#include "util/error.h"
#include "util/json_read.h"
#include "util/notice.h"
#include "util/path_name.h"
#include "util/staging_dir.h"
#include "util/text.h"

namespace schedlab::cli {

namespace {
// "name:key=value,key=value"
config::Variant parse_variant(const std::string& text) {
  auto colon = text.find(':');
  if (colon == std::string::npos || colon == 0)
    throw util::InputError("--variant", 0, text, "expected NAME:key.path=value[,key.path=value...]");
  config::Variant v{text.substr(0, colon), {}, std::nullopt, 0};
  util::check_path_name(v.name, util::FieldContext{"", 0, "--variant"});
  std::string rest = text.substr(colon + 1);
  std::size_t start = 0;
  while (start < rest.size()) {
    auto comma = rest.find(',', start);
    // A comma inside [...] belongs to a list value.
    auto open = rest.find('[', start);
    if (open != std::string::npos && open < comma) comma = rest.find(',', rest.find(']', open));
    v.sets.push_back(rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return v;
}

// Each variant becomes a folder inside the results folder (its name passed check_path_name
// where it was read): distinct, and not the compare's own table.
void check_variant_names(const std::vector<config::Variant>& list, const std::string& scenario) {
  std::set<std::string> seen;
  for (const auto& v : list) {
    const std::string field = v.index ? fmt::format("variants.{}.name", *v.index) : "--variant";
    const std::string file = v.index ? scenario : "";
    if (v.name == "compare.csv" || v.name == "compare-long.csv")
      throw util::InputError(
          file, v.line, field,
          fmt::format("'{}' is one of the compare's own tables; name the variant otherwise", v.name));
    if (!seen.insert(v.name).second)
      throw util::InputError(file, v.line, field, fmt::format("'{}' is named twice", v.name));
  }
}
}  // namespace

void add_compare_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("compare", "Run a scenario's variants (its `variants:` list or --variant) side by "
                                            "side; writes one results folder per variant, compare.csv and "
                                            "compare-long.csv");
  auto opts = std::make_shared<ScenarioOptions>();
  auto variants = std::make_shared<std::vector<std::string>>();
  auto out = std::make_shared<std::string>();
  auto jobs = std::make_shared<unsigned>(0);
  auto force = std::make_shared<bool>(false);
  auto format = std::make_shared<std::string>("text");
  add_scenario_options(cmd, *opts);
  add_format_option(cmd, *format);
  auto explain = std::make_shared<std::uint32_t>(0);
  auto* explain_opt = add_number_option(cmd, "--explain", *explain, "Tell one job's story (its id in jobs.csv) under each "
                                                             "variant")
                          ->type_name("JOB");
  cmd->add_option("--variant", *variants, "NAME:key.path=value[,key.path=value...] (repeatable; replaces the "
                                          "scenario's list)");
  cmd->add_option("-o,--out", *out, "Results folder (default: results/<scenario name>-compare); replaces only a "
                                 "schedlab results folder");
  cmd->add_flag("--force", *force, "Also replace an empty folder that is not a results folder");
  add_number_option(cmd, "-j,--jobs", *jobs, "Variants run at once (default: number of cores)");
  auto quiet = std::make_shared<bool>(false);
  cmd->add_flag("-q,--quiet", *quiet, "No progress line on the terminal, no notices");
  cmd->callback([opts, variants, out, jobs, force, format, explain, explain_opt, quiet, &exit_code] {
    util::Notices notices(*quiet);  // one for all variants: each notice is said once
    auto base = load(*opts);
    std::vector<config::Variant> list;
    for (const auto& v : *variants) list.push_back(parse_variant(v));
    if (list.empty()) list = base.variants;
    if (list.empty())
      throw util::InputError(opts->scenario, 0, "variants", "no variants: add a `variants:` list or --variant");
    check_variant_names(list, opts->scenario);
    std::vector<config::Scenario> scenarios;
    for (const auto& v : list) {
      scenarios.push_back(load(*opts, &v));
      scenarios.back().name = v.name;
    }
    std::string dir = out->empty() ? "results/" + base.name + "-compare" : *out;
    // The packing experiment (sim/packing_run.h) has figures of its own: all variants or none.
    const bool packing = base.workload.packing_mode;
    for (std::size_t i = 0; i < scenarios.size(); ++i)
      if (scenarios[i].workload.packing_mode != packing)
        throw util::InputError(
            opts->scenario, 0, "variants",
            fmt::format("'{}' changes workload.mode: the variants of one compare share the mode", list[i].name));
    if (packing && explain_opt->count() > 0)
      throw util::InputError(base.file, base.workload.mode_line, "workload.mode",
                             "packing: --explain follows a replay in time");
    util::StagingDir staging(dir, *force);
    std::vector<run::RunOutcome> outcomes(scenarios.size());
    std::vector<run::PackingOutcome> packed(scenarios.size());
    std::vector<std::exception_ptr> errors(scenarios.size());
    unsigned width = *jobs ? *jobs : std::max(1u, std::thread::hardware_concurrency());
    const bool tty = !*quiet && ::isatty(STDERR_FILENO);
    ProgressBoard board(scenarios.size());
    for (std::size_t begin = 0; begin < scenarios.size(); begin += width) {
      std::vector<std::thread> threads;
      for (std::size_t i = begin; i < std::min(scenarios.size(), begin + width); ++i)
        threads.emplace_back([&, i] {
          try {
            sim::RunHooks hooks;
            if (explain_opt->count() > 0) hooks.explain = *explain;
            if (tty) hooks.progress = board.reporter(i);
            if (packing)
              packed[i] = run::run_packing(scenarios[i], notices, staging.file(list[i].name));
            else
              outcomes[i] = run::run_scenario(scenarios[i], notices, staging.file(list[i].name), false, {}, hooks);
          } catch (...) {
            errors[i] = std::current_exception();
          }
        });
      for (auto& t : threads) t.join();
    }
    for (auto& e : errors)
      if (e) std::rethrow_exception(e);

    std::vector<std::vector<std::pair<std::string, double>>> figures;
    for (std::size_t i = 0; i < scenarios.size(); ++i)
      figures.push_back(packing ? packed[i].figures() : outcomes[i].summary.figures());
    std::vector<std::string> names;
    for (const auto& v : list) names.push_back(v.name);
    const auto table = metrics::make_compare_table(names, figures);
    std::FILE* human = human_stream(*format);
    // Table: rows are figures, columns variants, with the ratio to the first variant.
    fmt::print(human, "scenario {} on {}: {} variants\n", util::printable(base.name),
               util::printable(base.cluster.name), list.size());
    fmt::print(human, "{}", metrics::format_compare_table(table));
    auto write_file = [&staging, &table](const std::string& file, auto writer) {
      std::ofstream csv(staging.file(file), std::ios::binary);
      writer(csv, table);
      csv.close();
      if (!csv) throw util::InputError(staging.file(file), 0, "", "write failed");
    };
    write_file("compare.csv", metrics::write_compare_csv);
    write_file("compare-long.csv", metrics::write_compare_long_csv);
    staging.commit();
    if (*format == "json") {
      // Each variant's summary as its summary.json has it.
      nlohmann::ordered_json doc;
      doc["scenario"] = base.name;
      doc["variants"] = nlohmann::ordered_json::array();
      for (std::size_t i = 0; i < list.size(); ++i) {
        std::ostringstream one;
        if (packing)
          run::write_packing_summary_json(one, packed[i], list[i].name);
        else
          metrics::write_summary_json(one, outcomes[i].summary, list[i].name);
        doc["variants"].push_back({{"name", list[i].name}, {"summary", util::parse_ordered_json(one.str())}});
      }
      fmt::print("{}\n", doc.dump(2));
    }
    for (std::size_t i = 0; i < list.size(); ++i)
      if (!outcomes[i].story.empty()) fmt::print(human, "{}: {}", list[i].name, outcomes[i].story);
    fmt::print(human, "results: {}/ (compare.csv, compare-long.csv and one folder per variant)\n", dir);
    exit_code = 0;
  });
}

}  // namespace schedlab::cli
