// Scenario loading: every section read into values, defaults, `--set` overrides, variants,
// and errors that name the file, line and field.
#include <doctest/doctest.h>

#include "../support/input_errors.h"
#include "config/cluster_config.h"
#include "config/scenario.h"
#include "util/error.h"

using namespace schedlab;
using namespace schedlab::testing;
using namespace schedlab::config;

TEST_CASE("Config.Scenario.reads_every_section") {
  Scenario sc = load_scenario(fixture("scenarios/tiny.yaml"));
  CHECK(sc.name == "tiny-test");
  CHECK(sc.seed == 5);
  CHECK(sc.cluster_file == fixture("clusters/tiny.yaml"));
  CHECK(sc.catalog_file.ends_with("configs/gpus.yaml"));
  CHECK(sc.catalog.find("A100").has_value());
  REQUIRE(sc.cluster.racks.size() == 2);
  CHECK(sc.cluster.name == "tiny");
  CHECK(sc.cluster.racks[0].hosts[0].count == 2);
  CHECK(sc.cluster.racks[0].hosts[0].gpus == 4);
  CHECK(sc.cluster.racks[0].oversubscription == 2);
  CHECK(sc.cluster.racks[1].uplink_gbps == 25);
  CHECK(sc.cluster.racks[1].hosts[0].model == *sc.catalog.find("A100"));
  CHECK(sc.workload.trace == fixture("native/small.csv"));
  CHECK(sc.workload.options.format == "native");
  CHECK_FALSE(sc.workload.generate.has_value());
  CHECK(sc.scheduler.queue == "fifo");
  CHECK(sc.scheduler.admission == std::vector<std::string>{"gang"});
  CHECK(sc.scheduler.filters == std::vector<std::string>{"gpu-model", "same-generation"});
  CHECK(sc.scheduler.placement == "rack-pack");
  CHECK(sc.scheduler.backfill == "easy");
  CHECK(sc.scheduler.args.at("easy").find("max_scan")->text == "10");
  CHECK(sc.timeline_interval == 60 * engine::kMicrosPerSecond);
  REQUIRE(sc.variants.size() == 2);
  CHECK(sc.variants[0].name == "ff");
  CHECK(sc.variants[0].index == 0u);
  CHECK(sc.variants[0].line == 19);
  CHECK(sc.variants[1].name == "inc");
  CHECK(sc.variants[1].index == 1u);
  CHECK(sc.variants[1].line == 20);
}

TEST_CASE("Config.Scenario.defaults_live_in_one_place") {
  Scenario sc = load_scenario(fixture("scenarios/minimal.yaml"));
  const sched::SchedulerConfig defaults;
  CHECK(sc.name == "minimal");  // the file's stem
  CHECK(sc.seed == 1);
  CHECK(sc.scheduler.queue == defaults.queue);
  CHECK(sc.scheduler.admission == defaults.admission);
  CHECK(sc.scheduler.filters == defaults.filters);
  CHECK(sc.scheduler.placement == defaults.placement);
  CHECK(sc.scheduler.backfill == defaults.backfill);
  CHECK(sc.perf.model == "trace");
  CHECK(sc.workload.options.format == "auto");
  CHECK(sc.timeline_interval == 600 * engine::kMicrosPerSecond);
  CHECK(sc.variants.empty());
}

TEST_CASE("Config.Scenario.set_overrides_are_validated_like_the_file") {
  Scenario sc = load_scenario(fixture("scenarios/tiny.yaml"),
                              {"scheduler.placement=spread", "scheduler.filters=[gpu-model]", "seed=9",
                               "metrics.timeline_interval_s=30"});
  CHECK(sc.scheduler.placement == "spread");
  CHECK(sc.scheduler.filters == std::vector<std::string>{"gpu-model"});
  CHECK(sc.seed == 9);
  CHECK(sc.timeline_interval == 30 * engine::kMicrosPerSecond);
  CHECK(sc.resolved["scheduler"]["placement"].as<std::string>() == "spread");

  // The seed argument wins over the file and over --set.
  CHECK(load_scenario(fixture("scenarios/tiny.yaml"), {"seed=9"}, 11).seed == 11);

  // A new nested key is created on the way down.
  Scenario gen = load_scenario(fixture("scenarios/minimal.yaml"),
                               {"workload={generate: {jobs: 3}}"});
  REQUIRE(gen.workload.generate.has_value());
  CHECK(gen.workload.generate->jobs == 3);

  auto bad = input_error_of([] { load_scenario(fixture("scenarios/tiny.yaml"), {"scheduler.placement=bestfit"}); });
  CHECK(bad.field() == "scheduler.placement");
  CHECK(std::string(bad.what()).find("unknown placement 'bestfit'; did you mean 'best-fit'?") != std::string::npos);

  auto typo = input_error_of([] { load_scenario(fixture("scenarios/tiny.yaml"), {"scheduler.placment=spread"}); });
  CHECK(typo.field() == "scheduler.placment");
  CHECK(std::string(typo.what()).find("did you mean 'placement'?") != std::string::npos);

  auto no_eq = input_error_of([] { load_scenario(fixture("scenarios/tiny.yaml"), {"scheduler.placement"}); });
  CHECK(no_eq.file() == "--set");
  CHECK(std::string(no_eq.what()).find("expected key.path=value") != std::string::npos);

  auto not_map = input_error_of([] { load_scenario(fixture("scenarios/tiny.yaml"), {"seed.x=1"}); });
  CHECK(std::string(not_map.what()).find("'seed' is not a map") != std::string::npos);
}

TEST_CASE("Config.Scenario.variants_apply_as_overrides") {
  Scenario base = load_scenario(fixture("scenarios/tiny.yaml"));
  Scenario inc = load_scenario(fixture("scenarios/tiny.yaml"), {}, std::nullopt, base.variants[1].index);
  CHECK(inc.scheduler.admission == std::vector<std::string>{"incremental"});
  CHECK(inc.scheduler.backfill == "none");
  CHECK(inc.scheduler.placement == "rack-pack");  // untouched
  // --set comes after the variant's own set:
  Scenario inc_ff = load_scenario(fixture("scenarios/tiny.yaml"), {"scheduler.backfill=easy"}, std::nullopt,
                                  base.variants[1].index);
  CHECK(inc_ff.scheduler.backfill == "easy");
}

TEST_CASE("Config.Scenario.variant_errors_name_their_line") {
  // tests/fixtures/scenarios/variant_bad_set.yaml: variant 'bad' sets an unknown placement on line 8.
  Scenario base = load_scenario(fixture("scenarios/variant_bad_set.yaml"));
  REQUIRE(base.variants.size() == 2);
  try {
    load_scenario(fixture("scenarios/variant_bad_set.yaml"), {}, std::nullopt, base.variants[1].index);
    FAIL("expected an error");
  } catch (const util::InputError& e) {
    CHECK(e.line() == 8);
    CHECK(e.field() == "scheduler.placement");
  }
}

TEST_CASE("Config.Scenario.generator_settings") {
  Scenario sc = load_scenario(fixture("scenarios/generated.yaml"));
  REQUIRE(sc.workload.generate.has_value());
  const auto& g = *sc.workload.generate;
  CHECK(g.jobs == 200);
  CHECK(g.arrival_rate_per_hour == 120);
  CHECK(g.gpu_sizes == std::vector<std::uint32_t>{1, 2, 4, 8});
  CHECK(g.gpus_per_host == 4);
  CHECK(g.models == std::vector<std::string>{"any", "A100"});
  CHECK(sc.workload.trace.empty());
}

TEST_CASE("Config.Scenario.errors_name_file_line_and_field") {
  const Located cases[] = {
      {"scenarios/typo_key.yaml", 5, "schedular", "unknown key 'schedular'; did you mean 'scheduler'?"},
      {"scenarios/bad_part.yaml", 7, "scheduler.placement",
       "unknown placement 'bestfit'; did you mean 'best-fit'? valid: first-fit, best-fit, rack-pack, spread"},
      {"clusters/unknown_model.yaml", 8, "racks[0].hosts[1].model",
       "unknown GPU model 'V1OO'; did you mean 'V100'?"},
      {"scenarios/bad_generator.yaml", 5, "workload.generate", "need one weight per entry of gpu_sizes"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.file);
    const std::string scenario =
        std::string(c.file).starts_with("clusters/") ? fixture("scenarios/bad_cluster.yaml") : fixture(c.file);
    check_located(input_error_of([&] { load_scenario(scenario); }), c);
  }
}

TEST_CASE("Config.Scenario.missing_file_is_an_input_error") {
  auto e = input_error_of([] { load_scenario(fixture("scenarios/no_such.yaml")); });
  CHECK(e.file() == fixture("scenarios/no_such.yaml"));
  CHECK(std::string(e.what()).find("cannot open file") != std::string::npos);
}

TEST_CASE("Config.Cluster.catalog_and_cluster_files") {
  auto catalog = load_catalog(std::string(SCHEDLAB_SOURCE_DIR) + "/configs/gpus.yaml");
  REQUIRE(catalog.find("H100").has_value());
  CHECK(catalog.model(*catalog.find("H100")).generation == 90);
  CHECK(catalog.model(*catalog.find("V100")).speed == 1.0);
  auto f = load_cluster(fixture("clusters/tiny.yaml"), catalog);
  CHECK(f.spec.name == "tiny");
  CHECK(f.catalog_path.ends_with("configs/gpus.yaml"));
  cluster::Topology topo(f.spec, catalog);
  CHECK(topo.total_gpus() == 16);
  CHECK(topo.rack(0).uplink_gbps == doctest::Approx(12.5));  // 2 x 12.5 / 2
  CHECK(topo.rack(1).oversubscription == doctest::Approx(1.0));
}

TEST_CASE("Config.Cluster.cpus_and_memory_per_host_group_and_hosts_without_gpus") {
  auto catalog = load_catalog(std::string(SCHEDLAB_SOURCE_DIR) + "/configs/gpus.yaml");
  auto f = load_cluster(fixture("clusters/cpus.yaml"), catalog);
  const auto& g = f.spec.racks[0].hosts;
  // Not given: the defaults per GPU (12 CPUs, 128 GB); given: as written.
  CHECK(g[0].cpu_milli == 4 * kDefaultHostCpusPerGpu * 1000);
  CHECK(g[0].mem_mib == 4 * kDefaultHostMemGbPerGpu * 1024);
  CHECK((g[1].cpu_milli == 64000 && g[1].mem_mib == 512 * 1024));
  const auto& c = f.spec.racks[1].hosts[0];
  CHECK((c.gpus == 0 && c.cpu_milli == 95500 && c.mem_mib == 384 * 1024));
  cluster::Topology topo(f.spec, catalog);
  CHECK(topo.total_gpus() == 16);
  CHECK(topo.hosts().size() == 6);
  CHECK(topo.total_cpu_milli() == 2 * 48000 + 64000 + 3 * 95500);
  CHECK((topo.models_present() & cluster::kHostsWithoutGpus) != 0);
  CHECK(topo.max_host_cpu_milli(topo.no_gpu_class()) == 95500);
}

TEST_CASE("Config.Cluster.bad_cpus_and_memory_are_located") {
  auto catalog = load_catalog(std::string(SCHEDLAB_SOURCE_DIR) + "/configs/gpus.yaml");
  struct Case {
    const char* file;
    long line;
    const char* field;
    const char* says;
  };
  const Case cases[] = {
      {"clusters/cpu_host_with_model.yaml", 7, "racks[0].hosts[0].model", "hosts without GPUs (gpus: 0) have no GPU model"},
      {"clusters/cpus_not_number.yaml", 7, "racks[0].hosts[0].cpus", "expected a number, got 'many'"},
      {"clusters/cpus_too_fine.yaml", 7, "racks[0].hosts[0].cpus", "1.0005 is finer than a thousandth of a CPU"},
      {"clusters/too_many_hosts.yaml", 6, "racks[0].count", "at least 1200000 hosts, more than the limit of 1000000"},
  };
  for (const auto& c : cases) {
    CAPTURE(std::string(c.file));
    auto e = input_error_of([&] { load_cluster(fixture(c.file), catalog); });
    CHECK(e.line() == c.line);
    CHECK(e.field() == c.field);
    CHECK_MESSAGE(says(e, c.says), std::string(e.what()));
  }
}

TEST_CASE("Config.Scenario.resources_give_the_per_gpu_defaults") {
  Scenario sc = load_scenario(fixture("scenarios/minimal.yaml"));
  const workload::ResourceDefaults defaults;
  CHECK(sc.workload.resources.cpu_milli_per_gpu == defaults.cpu_milli_per_gpu);
  CHECK(sc.workload.resources.mem_mib_per_gpu == defaults.mem_mib_per_gpu);
  sc = load_scenario(fixture("scenarios/minimal.yaml"), {"resources={cpus_per_gpu: 8, mem_gb_per_gpu: 64}"});
  CHECK(sc.workload.resources.cpu_milli_per_gpu == 8000);
  CHECK(sc.workload.resources.mem_mib_per_gpu == 64 * 1024);
  auto e = input_error_of([] { load_scenario(fixture("scenarios/minimal.yaml"), {"resources.cpu_per_gpu=2"}); });
  CHECK(says(e, "did you mean 'cpus_per_gpu'?"));
}

TEST_CASE("Config.Override.apply_override_edits_the_tree") {
  YAML::Node root = YAML::Load("a: {b: 1}\nc: x\n");
  apply_override(root, "a.b=2");
  apply_override(root, "d.e.f=[1, 2]");
  apply_override(root, "c=y");
  CHECK(root["a"]["b"].as<int>() == 2);
  CHECK(root["d"]["e"]["f"].size() == 2);
  CHECK(root["c"].as<std::string>() == "y");
}
