// Rows per second of each public-format trace reader, on generated files of 200,000 rows
// written once to the temporary directory (target: >= 1,000,000 rows/s per reader).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "workload/trace_format.h"

using namespace schedlab::workload;

namespace {

constexpr int kRows = 200000;

// Writes the file once per process; rows are in submit order so streamed readers accept them.
std::string generated(const std::string& name, const std::string& header,
                      const std::function<std::string(int)>& row) {
  auto path = (std::filesystem::temp_directory_path() / ("schedlab_bench_" + name)).string();
  if (std::filesystem::exists(path)) std::filesystem::remove(path);
  std::ofstream out(path);
  out << header;
  for (int i = 0; i < kRows; ++i) out << row(i);
  return path;
}

const char* kShapes[] = {"1", "2", "4", "8", "8+8", "4+4", "2+2+2+2", "8+8+8+8"};
const int kSizes[] = {1, 2, 4, 8, 16, 8, 8, 32};

std::string rfold_file() {
  static const std::string path = generated(
      "rfold.csv", "#job id,arrival time (sec),topology,shape,size,duration (sec)\n", [](int i) {
        int s = i % 8;
        return std::to_string(i) + "," + std::to_string(i * 3) + ".0,CLOS," + kShapes[s] + "," +
               std::to_string(kSizes[s]) + "," + std::to_string(60 + i % 5000) + ".5\n";
      });
  return path;
}

// The native format as `schedlab trace generate` writes it (all 15 columns).
std::string native_file() {
  static const std::string path = generated(
      "native.csv",
      "id,submit_s,duration_s,tasks,gpus_per_task,gpu_milli,gpu_model,min_generation,user,pool,priority,gang,kind,"
      "estimate_s,status\n",
      [](int i) {
        return std::to_string(i) + "," + std::to_string(i * 3) + ".250000," + std::to_string(60 + i % 5000) +
               ".000000," + std::to_string(1 + i % 4) + ",8,1000,,0,user" + std::to_string(i % 32) +
               ",,0,1,batch,0.000000,unknown\n";
      });
  return path;
}

std::string openb_file() {
  static const std::string path = generated(
      "openb.csv",
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n",
      [](int i) {
        bool share = i % 3 == 0;
        std::string gpus = share ? "1,460" : std::to_string(1 + i % 8) + ",1000";
        return "openb-pod-" + std::to_string(i) + ",12000,16384," + gpus + "," + (i % 4 == 0 ? "V100M16|V100M32" : "") +
               ",LS,Running," + std::to_string(i * 2) + "," + std::to_string(i * 2 + 1000) + "," +
               std::to_string(i * 2 + 5) + "\n";
      });
  return path;
}

std::string helios_file() {
  static const std::string path = generated(
      "helios.csv", "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n",
      [](int i) {
        int day = 1 + (i / 40000), sec = i % 40000;
        char t[32], e[32];
        std::snprintf(t, sizeof t, "2020-06-%02d %02d:%02d:%02d", day, sec / 3600, (sec / 60) % 60, sec % 60);
        std::snprintf(e, sizeof e, "2020-06-%02d %02d:%02d:%02d", day + 1, sec / 3600, (sec / 60) % 60, sec % 60);
        return std::to_string(1000000 + i) + ",u" + std::to_string(i % 300) + ",vc" + std::to_string(i % 20) +
               ",8,32,1,COMPLETED," + t + "," + t + "," + e + ",86400,0\n";
      });
  return path;
}

std::string pai_file() {
  static const std::string path = generated("pai_task_table.csv", "", [](int i) {
    return "job" + std::to_string(i) + ",worker," + std::to_string(1 + i % 4) + ".0,Terminated," +
           std::to_string(1000 + i * 2) + ".0," + std::to_string(1600 + i * 2) + ".0,600.0,29.3," +
           (i % 2 ? "50.0" : "100.0") + ",V100\n";
  });
  return path;
}

std::string swf_file() {
  static const std::string path = generated("trace.swf", "; Version: 2.2\n; MaxProcs: 128\n", [](int i) {
    return std::to_string(i + 1) + " " + std::to_string(i * 7) + " 10 " + std::to_string(100 + i % 999) + " " +
           std::to_string(1 + i % 64) + " -1 -1 " + std::to_string(1 + i % 64) + " 3600 -1 1 3 1 -1 1 -1 -1 -1\n";
  });
  return path;
}

std::string philly_file() {
  static const std::string path = generated("philly.json", "[\n", [](int i) {
    char t[32];
    std::snprintf(t, sizeof t, "2017-10-%02d %02d:%02d:%02d", 1 + i / 40000, (i % 40000) / 3600, (i / 60) % 60,
                  i % 60);
    std::string s = std::string(i ? "," : "") + R"({"status": "Pass", "vc": "vc1", "jobid": "application_)" +
                    std::to_string(i) + R"(", "submitted_time": ")" + t +
                    R"(", "user": "u1", "attempts": [{"start_time": ")" + t + R"(", "end_time": ")" + t +
                    R"(", "detail": [{"ip": "m1", "gpus": ["gpu0", "gpu1"]}]}]})" + "\n";
    if (i == kRows - 1) s += "]\n";
    return s;
  });
  return path;
}

void read_all(benchmark::State& state, const std::string& format, const std::string& path) {
  std::int64_t rows = 0;
  for (auto _ : state) {
    TraceOptions options;
    options.format = format;
    auto source = open_trace(path, options);
    JobSpec job;
    while (source->next(job)) ++rows;
    benchmark::DoNotOptimize(job);
  }
  state.SetItemsProcessed(rows);
}

void BM_Native(benchmark::State& s) { read_all(s, "native", native_file()); }
void BM_Rfold(benchmark::State& s) { read_all(s, "rfold", rfold_file()); }
void BM_Openb(benchmark::State& s) { read_all(s, "openb", openb_file()); }
void BM_Helios(benchmark::State& s) { read_all(s, "helios", helios_file()); }
void BM_Pai2020(benchmark::State& s) { read_all(s, "pai2020", pai_file()); }
void BM_Swf(benchmark::State& s) { read_all(s, "swf", swf_file()); }
void BM_PhillyJson(benchmark::State& s) { read_all(s, "philly", philly_file()); }

}  // namespace

BENCHMARK(BM_Native)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Rfold)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Openb)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Helios)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Pai2020)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Swf)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PhillyJson)->Unit(benchmark::kMillisecond);
