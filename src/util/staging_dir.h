// A results folder that appears only when complete: files are written into a temporary
// sibling folder, which replaces the target on commit() and is removed otherwise.
#pragma once

#include <string>

namespace schedlab {

class StagingDir {
 public:
  explicit StagingDir(std::string target);
  ~StagingDir();
  StagingDir(const StagingDir&) = delete;
  StagingDir& operator=(const StagingDir&) = delete;

  const std::string& path() const { return temp_; }
  std::string file(const std::string& name) const { return temp_ + "/" + name; }
  void commit();

 private:
  std::string target_;
  std::string temp_;
  bool committed_ = false;
};

}  // namespace schedlab
