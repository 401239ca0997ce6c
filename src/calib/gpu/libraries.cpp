// Opening NCCL and cuBLAS at run time (see libraries.h).
#include "calib/gpu/libraries.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <glob.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "util/error.h"

namespace schedlab::calib::gpu {
namespace {

// ---- finding the libraries -------------------------------------------------------------------

bool is_file(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::vector<std::string> glob_paths(const std::string& pattern) {
  std::vector<std::string> out;
  glob_t g{};
  if (::glob(pattern.c_str(), 0, nullptr, &g) == 0)
    for (size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
  ::globfree(&g);
  return out;
}

// Python's site-packages folders, where pip wheels (nvidia-nccl-cu12, nvidia-cublas) put libraries.
std::vector<std::string> python_site_dirs() {
  std::vector<std::string> dirs;
  auto add = [&](const std::string& d) {
    if (!d.empty() && std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(d);
  };
  if (FILE* f =
          ::popen("python3 -c 'import site,sys; "
                  "print(\"\\n\".join(site.getsitepackages()+[site.getusersitepackages()]+sys.path))' 2>/dev/null",
                  "r")) {
    char buf[4096];
    while (std::fgets(buf, sizeof buf, f)) {
      std::string s(buf);
      while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
      if (s.find("site-packages") != std::string::npos || s.find("dist-packages") != std::string::npos) add(s);
    }
    ::pclose(f);
  }
  std::vector<std::string> roots = {"/usr/lib", "/usr/local/lib", "/opt/conda/lib"};
  for (const char* env : {"VIRTUAL_ENV", "CONDA_PREFIX"})
    if (const char* v = std::getenv(env)) roots.push_back(std::string(v) + "/lib");
  if (const char* home = std::getenv("HOME")) roots.push_back(std::string(home) + "/.local/lib");
  for (const auto& r : roots)
    for (const char* kind : {"site-packages", "dist-packages"})
      for (const auto& d : glob_paths(r + "/python3*/" + kind)) add(d);
  return dirs;
}

// dlopen by explicit path, else by name (LD_LIBRARY_PATH, ld.so cache), else in the wheel folders
// and `extra_dirs`. Returns nullptr and lists what was tried.
void* open_library(const std::string& explicit_path, const std::vector<std::string>& names,
                   const std::vector<std::string>& wheel_subdirs, const std::vector<std::string>& extra_dirs,
                   std::string& found, std::vector<std::string>& tried) {
  if (!explicit_path.empty()) {
    tried.push_back(explicit_path);
    void* h = ::dlopen(explicit_path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (h)
      found = explicit_path;
    else if (const char* err = ::dlerror())
      tried.back() += fmt::format(" ({})", err);
    return h;
  }
  for (const auto& n : names) {
    tried.push_back(n);
    if (void* h = ::dlopen(n.c_str(), RTLD_NOW | RTLD_GLOBAL)) {
      found = n;
      return h;
    }
  }
  std::vector<std::string> dirs;
  for (const auto& site : python_site_dirs())
    for (const auto& sub : wheel_subdirs) dirs.push_back(site + "/" + sub);
  dirs.insert(dirs.end(), extra_dirs.begin(), extra_dirs.end());
  for (const auto& d : dirs)
    for (const auto& n : names) {
      std::string p = d + "/" + n;
      if (!is_file(p)) continue;
      tried.push_back(p);
      if (void* h = ::dlopen(p.c_str(), RTLD_NOW | RTLD_GLOBAL)) {
        found = p;
        return h;
      }
    }
  return nullptr;
}

// Not named `bind`: a call with a std::string argument finds std::bind by argument-dependent
// lookup, which wins overload resolution and silently binds nothing (every NCCL and cuBLAS entry
// stayed null, and the first call crashed, on the first GPU this ran on).
template <typename F>
void bind_symbol(void* handle, F& fn, const char* symbol, const std::string& lib, const char* who) {
  fn = reinterpret_cast<F>(::dlsym(handle, symbol));
  if (!fn) throw util::EnvironmentError(fmt::format("{}: {} has no symbol {}", who, lib, symbol));
}

}  // namespace

void cuda_check(cudaError_t e, const char* what, const char* who) {
  if (e != cudaSuccess)
    throw util::EnvironmentError(fmt::format("{}: {} failed: {}", who, what, cudaGetErrorString(e)));
}

void nccl_check(const NcclApi& nccl, ncclResult_t r, const char* what, const char* who) {
  if (r != 0)
    throw util::EnvironmentError(fmt::format("{}: {} failed: {} (NCCL error {})", who, what,
                                             nccl.GetErrorString ? nccl.GetErrorString(r) : "?", r));
}

NcclApi load_nccl(const std::string& explicit_path, const char* who) {
  NcclApi api;
  std::vector<std::string> tried;
  api.handle = open_library(explicit_path, {"libnccl.so.2", "libnccl.so"},
                            {"nvidia/nccl/lib", "nvidia/cu13/lib", "nvidia/cu12/lib"},
                            {"/usr/local/cuda/lib64", "/usr/lib/x86_64-linux-gnu"}, api.path, tried);
  if (!api.handle)
    throw util::EnvironmentError(
        fmt::format("{}: NCCL not found (tried {}); install it (apt libnccl2 or pip nvidia-nccl-cu12) or pass "
                    "--nccl-lib PATH",
                    who, tried.empty() ? std::string("nothing") : fmt::format("{}", fmt::join(tried, ", "))));
  bind_symbol(api.handle, api.GetVersion, "ncclGetVersion", api.path, who);
  bind_symbol(api.handle, api.GetUniqueId, "ncclGetUniqueId", api.path, who);
  bind_symbol(api.handle, api.CommInitAll, "ncclCommInitAll", api.path, who);
  bind_symbol(api.handle, api.CommInitRank, "ncclCommInitRank", api.path, who);
  bind_symbol(api.handle, api.CommDestroy, "ncclCommDestroy", api.path, who);
  bind_symbol(api.handle, api.CommAbort, "ncclCommAbort", api.path, who);
  bind_symbol(api.handle, api.AllReduce, "ncclAllReduce", api.path, who);
  bind_symbol(api.handle, api.GroupStart, "ncclGroupStart", api.path, who);
  bind_symbol(api.handle, api.GroupEnd, "ncclGroupEnd", api.path, who);
  bind_symbol(api.handle, api.GetErrorString, "ncclGetErrorString", api.path, who);
  return api;
}

// Optional: without cuBLAS the profile has no compute figures (a warning says so).
CublasApi load_cublas(std::string& why_not, const char* who) {
  CublasApi api;
  std::vector<std::string> tried;
  std::vector<std::string> subdirs = {"nvidia/cublas/lib", "nvidia/cu13/lib", "nvidia/cu12/lib"};
  std::vector<std::string> extra = {"/usr/local/cuda/lib64"};
  std::string lt_path;
  // cuBLASLt first and global, so that libcublas finds it in a wheel folder without an rpath.
  open_library("", {"libcublasLt.so.13", "libcublasLt.so.12"}, subdirs, extra, lt_path, tried);
  tried.clear();
  api.handle =
      open_library("", {"libcublas.so.13", "libcublas.so.12", "libcublas.so"}, subdirs, extra, api.path, tried);
  if (!api.handle) {
    why_not = fmt::format("cuBLAS not found (tried {})", fmt::join(tried, ", "));
    return api;
  }
  bind_symbol(api.handle, api.Create, "cublasCreate_v2", api.path, who);
  bind_symbol(api.handle, api.Destroy, "cublasDestroy_v2", api.path, who);
  bind_symbol(api.handle, api.SetStream, "cublasSetStream_v2", api.path, who);
  bind_symbol(api.handle, api.GemmEx, "cublasGemmEx", api.path, who);
  return api;
}

}  // namespace schedlab::calib::gpu
