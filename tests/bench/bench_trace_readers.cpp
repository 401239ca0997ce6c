// Rows per second of each public-format trace reader, on generated files of 200,000 rows
// written once to the temporary directory (target: >= 1,000,000 rows/s per reader; for the
// raw Philly JSON, >= 1,000,000 attempts/s).
#include <benchmark/benchmark.h>

#include <cstdint>
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

// The raw Philly log as published: one job object a line, keys in the published order, most
// jobs with one attempt but some retried up to 5 times, and multi-host attempts (2 or 4 hosts
// of 8 GPUs). Items are attempts, counted while writing.
struct PhillyFile {
  std::string path;
  std::int64_t attempts = 0;
};

std::string philly_time(long s) {  // seconds into October 2017
  char t[32];
  std::snprintf(t, sizeof t, "2017-10-%02ld %02ld:%02ld:%02ld", 1 + s / 86400, s / 3600 % 24, s / 60 % 60, s % 60);
  return t;
}

const PhillyFile& philly_file() {
  static const PhillyFile file = [] {
    PhillyFile f;
    static constexpr int kAttempts[] = {1, 1, 1, 1, 1, 1, 2, 2, 3, 5};
    static constexpr int kHostGpus[] = {1, 2, 4, 8, 8};
    f.path = generated("philly.json", "[\n", [&f](int i) {
      const long submit = i * 10L;
      const int attempts = kAttempts[i % 10];
      const int shape = (i / 10) % 8;  // 0-4: one host of 1..8 GPUs, 5-6: 2 x 8, 7: 4 x 8
      const int hosts = shape < 5 ? 1 : shape < 7 ? 2 : 4;
      const int gpus = shape < 5 ? kHostGpus[shape] : 8;
      std::string s = std::string(R"({"status": ")") + (i % 7 ? "Pass" : "Killed") +
                      R"(", "vc": "vc)" + std::to_string(i % 14) + R"(", "jobid": "application_1506638472019_)" +
                      std::to_string(i) + R"(", "attempts": [)";
      for (int a = 0; a < attempts; ++a) {
        const long start = submit + 30 + a * 600;
        s += std::string(a ? ", " : "") + R"({"start_time": ")" + philly_time(start) + R"(", "end_time": ")" +
             philly_time(start + 500) + R"(", "detail": [)";
        for (int h = 0; h < hosts; ++h) {
          s += std::string(h ? ", " : "") + R"({"ip": "m)" + std::to_string((i * 7 + a * 3 + h) % 550) +
               R"(", "gpus": [)";
          for (int g = 0; g < gpus; ++g) s += std::string(g ? ", " : "") + "\"gpu" + std::to_string(g) + "\"";
          s += "]}";
        }
        s += "]}";
      }
      f.attempts += attempts;
      s += R"(], "submitted_time": ")" + philly_time(submit) + R"(", "user": "u)" + std::to_string(i % 300) +
           (i == kRows - 1 ? "\"}\n]\n" : "\"},\n");
      return s;
    });
    return f;
  }();
  return file;
}

// Items are the jobs read, or `items_per_pass` per pass over the file when given.
void read_all(benchmark::State& state, const std::string& format, const std::string& path,
              std::int64_t items_per_pass = 0) {
  std::int64_t rows = 0, passes = 0;
  for (auto _ : state) {
    TraceOptions options;
    options.format = format;
    auto source = open_trace(path, options);
    JobSpec job;
    while (source->next(job)) ++rows;
    benchmark::DoNotOptimize(job);
    ++passes;
  }
  state.SetItemsProcessed(items_per_pass > 0 ? items_per_pass * passes : rows);
}

void BM_Native(benchmark::State& s) { read_all(s, "native", native_file()); }
void BM_Rfold(benchmark::State& s) { read_all(s, "rfold", rfold_file()); }
void BM_Openb(benchmark::State& s) { read_all(s, "openb", openb_file()); }
void BM_Helios(benchmark::State& s) { read_all(s, "helios", helios_file()); }
void BM_Pai2020(benchmark::State& s) { read_all(s, "pai2020", pai_file()); }
void BM_Swf(benchmark::State& s) { read_all(s, "swf", swf_file()); }
// Items: attempts (the per-attempt JSON), not jobs.
void BM_PhillyJson(benchmark::State& s) { read_all(s, "philly", philly_file().path, philly_file().attempts); }

}  // namespace

BENCHMARK(BM_Native)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Rfold)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Openb)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Helios)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Pai2020)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Swf)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PhillyJson)->Unit(benchmark::kMillisecond);
