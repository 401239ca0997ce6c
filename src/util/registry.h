// The one shape of a list of things a user chooses by name (scheduler parts, trace formats,
// perf models): entries of name, one line of help and a factory, in the order `schedlab list`
// prints them, filled by one visible function per list; an unknown name is answered with the
// closest valid one and the valid ones.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "util/error.h"
#include "util/suggest.h"

namespace schedlab::util {

template <class Factory>
class Registry {
 public:
  struct Entry {
    std::string name;
    std::string help;
    Factory make;
  };

  explicit Registry(std::string kind) : kind_(std::move(kind)) {}
  void add(std::string name, std::string help, Factory make) {
    items_.push_back({std::move(name), std::move(help), std::move(make)});
  }

  const std::string& kind() const { return kind_; }
  const std::vector<Entry>& items() const { return items_; }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : items_) out.push_back(e.name);
    return out;
  }
  const Entry* find(const std::string& name) const {
    for (const auto& e : items_)
      if (e.name == name) return &e;
    return nullptr;
  }
  bool contains(const std::string& name) const { return find(name) != nullptr; }
  // Throws InputError "unknown <kind> 'x'; did you mean ...? valid: ..." (without a place: the
  // caller that read the name knows it).
  const Entry& get(const std::string& name) const {
    if (const Entry* e = find(name)) return *e;
    throw InputError(unknown_name_message(kind_, name, names()));
  }

 private:
  std::string kind_;
  std::vector<Entry> items_;
};

}  // namespace schedlab::util
