// `emulate --gpus`: real GPUs dealt to hosts, each model's calibrated rate, the steps' GEMMs sized
// to the perf model's step time, and the agent's turn of GPU slots into real indices.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>

#include "calib/gpu_step.h"
#include "emu/controller/real_gpus.h"
#include "emu/node/agent.h"
#include "emu/node/worker.h"
#include "perf/perf_model.h"
#include "support/input_errors.h"
#include "support/scratch_dir.h"
#include "support/sim_harness.h"

namespace schedlab::emu {
namespace {

using testing::input_error_of;
using testing::says;

// 1 host of 2 H200 and 1 host of 1 A100: 3 GPUs.
cluster::ClusterSpec two_models() {
  cluster::ClusterSpec spec;
  spec.name = "two-models";
  cluster::RackSpec r;
  r.name = "r";
  r.count = 1;
  r.hosts.push_back(cluster::HostGroupSpec{1, 2, testing::kH200, 50});
  r.hosts.push_back(cluster::HostGroupSpec{1, 1, testing::kA100, 50});
  spec.racks.push_back(r);
  return spec;
}

struct NoAgents final : AgentLink {
  std::vector<LaunchCommand> launches;
  void send(cluster::HostId, Command c) override {
    if (auto* l = std::get_if<LaunchCommand>(&c)) launches.push_back(*l);
  }
  std::string address_of(cluster::HostId) const override { return "127.0.0.1"; }
};

std::string arg_after(const std::vector<std::string>& argv, const std::string& name) {
  for (std::size_t i = 0; i + 1 < argv.size(); ++i)
    if (argv[i] == name) return argv[i + 1];
  return "";
}

}  // namespace

TEST_CASE("Emu.RealGpus.the_list_is_dealt_to_hosts_in_order_and_rates_come_from_the_datasheet") {
  const auto catalog = testing::small_catalog();
  const cluster::Topology topo(two_models(), catalog);
  const RealGpus g = assign_real_gpus(topo, {4, 5, 7}, "");
  REQUIRE(g.per_host.size() == 2);
  CHECK(g.per_host[0] == std::vector<std::uint32_t>{4, 5});
  CHECK(g.per_host[1] == std::vector<std::uint32_t>{7});
  CHECK(g.steps.on);
  CHECK(g.steps.flops_per_s[testing::kH200] == doctest::Approx(989e12));  // datasheet bf16
  CHECK(g.steps.flops_per_s[testing::kA100] == doctest::Approx(312e12));
}

TEST_CASE("Emu.RealGpus.a_profile_overrides_the_datasheet_and_fp16_stands_in_for_bf16") {
  testing::ScratchDir dir("real-gpus-profile");
  const std::string file = (dir.path / "p.yaml").string();
  std::ofstream(file) << "compute:\n  \"H200\": {bf16: 785.4}\n";
  std::vector<cluster::GpuModel> m(2);
  m[0].name = "H200", m[0].generation = 90, m[0].speed = 5;
  m[1].name = "V100", m[1].generation = 70, m[1].speed = 1;  // the datasheet has fp16 only
  const cluster::GpuCatalog catalog(std::move(m));
  cluster::ClusterSpec spec = two_models();
  spec.racks[0].hosts[0].model = 0;
  spec.racks[0].hosts[1].model = 1;
  const cluster::Topology topo(spec, catalog);
  const RealGpus g = assign_real_gpus(topo, {0, 1, 2}, file);
  CHECK(g.steps.flops_per_s[0] == doctest::Approx(785.4e12));
  CHECK(g.steps.flops_per_s[1] == doctest::Approx(125e12));
}

TEST_CASE("Emu.RealGpus.errors_name_the_option") {
  const auto catalog = testing::small_catalog();
  const cluster::Topology topo(two_models(), catalog);
  CHECK(says(input_error_of([&] { assign_real_gpus(topo, {0}, ""); }),
             "--gpus: 1 GPU(s) listed, but the cluster 'two-models' has 3"));
  std::vector<cluster::GpuModel> m(1);
  m[0].name = "T4", m[0].generation = 75, m[0].speed = 1;
  const cluster::GpuCatalog t4(std::move(m));
  const cluster::Topology t4_topo(testing::uniform_cluster(1, 1, 1, 0), t4);
  CHECK(says(input_error_of([&] { assign_real_gpus(t4_topo, {0}, ""); }),
             "--gpus: the datasheet profile has no bf16 or fp16 TFLOP/s for GPU model T4"));
}

TEST_CASE("Emu.RealGpus.a_steps_gemm_takes_the_perf_models_step_time_at_the_calibrated_rate") {
  struct Row {
    double rate, speed, speedup, step_wall_us;
    std::int64_t units;
    double flops;
  };
  for (const Row& r : {Row{800e12, 1.0, 100, 20'000, 2'000'000, 16e12},   // 20 ms at 800 TFLOP/s
                       Row{800e12, 0.5, 100, 20'000, 1'000'000, 16e12},   // slower placement: fewer units, same wall
                       Row{100e12, 1.0, 30, 20'000, 600'000, 2e12},
                       Row{100e12, 0.25, 30, 20'000, 150'000, 2e12},
                       Row{100e12, 1.0, 3, 3'333.5, 10'001, 100e12 * 10'001 / 3 * 1e-6},  // units round up, flops follow
                       Row{1e15, 1e-9, 1e-6, 20'000, 1, 1e17}}) {           // capped at the worker's 1e17
    CAPTURE(r.speed);
    CAPTURE(r.speedup);
    const GpuStepPlan p = plan_gpu_step(r.rate, r.speed, r.speedup, r.step_wall_us);
    CHECK(p.step_units == r.units);
    CHECK(p.gemm_flops == doctest::Approx(r.flops));
  }
}

TEST_CASE("Emu.RealGpus.the_executor_runs_workers_on_the_gpus_at_the_slowest_models_rate") {
  const auto catalog = testing::small_catalog();
  const cluster::Topology topo(two_models(), catalog);
  auto perf = perf::make_trace_rate_model();
  NoAgents agents;
  EmuExecutorOptions o;
  o.speedup = 100;
  o.self_exe = "/bin/schedlab";
  o.checkpoint_root = "/tmp/ck";
  o.ports = GangPortsConfig{32500, 3, 4};
  o.gpu = assign_real_gpus(topo, {0, 1, 2}, "").steps;
  EmuExecutor exec(topo, *perf, agents, o);
  workload::JobSpec job;
  job.id = 1;
  job.duration = testing::sec(600);
  job.tasks = 2;
  cluster::Placement placement;
  placement.tasks = {{0, 1, 0, 0}, {1, 1, 0, 0}};  // one H200 task, one A100 task
  exec.start(1, job, placement, 0, 600e6, 0);
  REQUIRE(agents.launches.size() == 2);
  for (const auto& l : agents.launches) {
    CHECK(arg_after(l.argv, "--gpu") == "--step-us");
    CHECK(arg_after(l.argv, "--step-us") == "2000000");
    CHECK(std::stod(arg_after(l.argv, "--gemm-flops")) == doctest::Approx(312e12 * 0.02));  // the A100's rate
    CHECK(arg_after(l.argv, "--allreduce-bytes") == "0");
  }
}

TEST_CASE("Emu.RealGpus.an_agent_of_real_gpus_turns_slots_into_its_indices") {
  CHECK(real_gpu_indices("0,2", {4, 5, 6, 7}) == "4,6");
  CHECK(real_gpu_indices("3", {4, 5, 6, 7}) == "7");
  CHECK(says(input_error_of([] { real_gpu_indices("4", {4, 5, 6, 7}); }), "GPU slot 4 of a host with 4 GPU(s)"));
}

TEST_CASE("Emu.RealGpus.a_gpu_workers_step_times_in_one_line") {
  CHECK(format_gpu_steps({}) == "gpu steps: 0");
  CHECK(format_gpu_steps({90}) == "gpu steps: 1; first 90.000 ms");
  CHECK(format_gpu_steps({90, 20, 22, 21}) ==
        "gpu steps: 4; first 90.000 ms; then median 21.000 ms, mean 21.000 ms, min 20.000 ms, max 22.000 ms");
}

TEST_CASE("Calib.GpuStep.the_simulated_device_takes_the_gemm_at_its_rate_and_stops_when_asked") {
  ::setenv(calib::kSimulatedGpuVariable, "1000", 1);  // 1 PFLOP/s: 1e13 flops take 10 ms
  auto step = calib::open_gpu_step({1e13, 0, ""});
  ::unsetenv(calib::kSimulatedGpuVariable);
  CHECK(step->local_gpus() == 1);
  CHECK(step->gemm_flops() == 1e13);
  step->join(step->new_gang_id(), 0, 1);
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(step->run([] { return true; }));
  CHECK(std::chrono::steady_clock::now() - t0 >= std::chrono::milliseconds(10));
  CHECK_FALSE(step->run([] { return false; }));
  ::setenv(calib::kSimulatedGpuVariable, "fast", 1);
  CHECK(says(input_error_of([] { calib::open_gpu_step({1e13, 0, ""}); }), "env SCHEDLAB_SIMULATED_GPU_TFLOPS"));
  ::unsetenv(calib::kSimulatedGpuVariable);
}

}  // namespace schedlab::emu
