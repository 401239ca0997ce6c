// A strict reader of Prometheus' text exposition format 0.0.4, for the tests of GET /metrics
// (emu/controller/live_metrics.h): written from the format's description, not from our
// writer, so that the two can disagree. It refuses what a scraper would refuse or misread:
// bad metric or label names, bad escapes in label values, a sample before its family's TYPE,
// a TYPE given twice or after its samples, a series given twice, a sample whose name does
// not belong to its family's type, histogram buckets out of order, not cumulative, or not
// ending in le="+Inf", and a _count that differs from the +Inf bucket.
#pragma once

#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace schedlab::testing {

struct PromSample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

struct PromFamily {
  std::string type;  // counter, gauge, histogram, summary, untyped
  std::string help;
  std::vector<PromSample> samples;
};

struct PromText {
  std::map<std::string, PromFamily> families;
  std::string error;  // the first violation ("line N: ..."), empty when the text is valid

  bool ok() const { return error.empty(); }
  // The value of the one sample `name` with exactly `labels`; nullopt when there is none.
  std::optional<double> value(const std::string& name, const std::map<std::string, std::string>& labels = {}) const {
    for (const auto& [_, f] : families)
      for (const auto& s : f.samples)
        if (s.name == name && s.labels == labels) return s.value;
    return std::nullopt;
  }
};

namespace prom_detail {

inline bool name_start(char c, bool colon) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':');
}
inline bool name_char(char c, bool colon) { return name_start(c, colon) || (c >= '0' && c <= '9'); }
inline bool valid_name(std::string_view s, bool colon) {
  if (s.empty() || !name_start(s[0], colon)) return false;
  for (char c : s)
    if (!name_char(c, colon)) return false;
  return true;
}

// A float as Go's ParseFloat reads it (what Prometheus uses), with +Inf, -Inf and NaN.
inline std::optional<double> parse_value(const std::string& s) {
  if (s == "+Inf" || s == "Inf") return HUGE_VAL;
  if (s == "-Inf") return -HUGE_VAL;
  if (s == "NaN") return std::nan("");
  if (s.empty()) return std::nullopt;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return std::nullopt;
  return v;
}

// The family a sample name belongs to, given the families declared so far.
inline std::string family_of(const std::string& name, const std::map<std::string, PromFamily>& families) {
  if (families.count(name)) return name;
  for (const char* suffix : {"_bucket", "_sum", "_count"}) {
    const std::string_view sv(suffix);
    if (name.size() > sv.size() && name.compare(name.size() - sv.size(), sv.size(), sv) == 0) {
      const std::string base = name.substr(0, name.size() - sv.size());
      if (families.count(base)) return base;
    }
  }
  return {};
}

inline std::string check_histogram(const std::string& family, const PromFamily& f) {
  // Series are told apart by their labels other than le.
  std::map<std::map<std::string, std::string>, std::vector<const PromSample*>> buckets;
  std::map<std::map<std::string, std::string>, double> counts;
  std::set<std::map<std::string, std::string>> sums;
  for (const auto& s : f.samples) {
    auto key = s.labels;
    if (s.name == family + "_bucket") {
      if (!key.count("le")) return family + "_bucket without le";
      key.erase("le");
      buckets[key].push_back(&s);
    } else {
      if (s.labels.count("le")) return s.name + " has an le label";
      if (s.name == family + "_count")
        counts[key] = s.value;
      else
        sums.insert(key);
    }
  }
  if (buckets.empty()) return family + ": a histogram without buckets";
  for (const auto& [key, bs] : buckets) {
    double last_le = -HUGE_VAL, last_n = 0;
    for (const auto* b : bs) {
      const auto le = parse_value(b->labels.at("le"));
      if (!le || std::isnan(*le)) return family + ": le=\"" + b->labels.at("le") + "\" is not a number";
      if (!(*le > last_le)) return family + ": buckets not in increasing le";
      if (b->value < last_n) return family + ": buckets not cumulative at le=" + b->labels.at("le");
      if (b->value != std::floor(b->value) || b->value < 0) return family + ": a bucket count is not a count";
      last_le = *le;
      last_n = b->value;
    }
    if (!std::isinf(last_le)) return family + ": the last bucket is not le=\"+Inf\"";
    if (!counts.count(key)) return family + "_count missing";
    if (!sums.count(key)) return family + "_sum missing";
    if (counts.at(key) != last_n) return family + "_count differs from the +Inf bucket";
  }
  return {};
}

}  // namespace prom_detail

inline PromText parse_prometheus_text(std::string_view text) {
  using namespace prom_detail;
  PromText out;
  std::set<std::string> seen_series;
  std::set<std::string> with_samples;
  std::size_t line_no = 0;
  auto fail = [&](const std::string& why) {
    out.error = "line " + std::to_string(line_no) + ": " + why;
    return out;
  };
  if (!text.empty() && text.back() != '\n') return fail("the text does not end with a line feed");
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = text.find('\n', pos);
    const std::string line(text.substr(pos, end - pos));
    pos = end + 1;
    ++line_no;
    if (line.empty()) continue;
    if (line[0] == '#') {
      // "# HELP name text" and "# TYPE name type"; other comments are allowed and ignored.
      if (line.rfind("# HELP ", 0) != 0 && line.rfind("# TYPE ", 0) != 0) continue;
      const std::string rest = line.substr(7);
      const auto sp = rest.find(' ');
      const std::string name = rest.substr(0, sp);
      const std::string arg = sp == std::string::npos ? "" : rest.substr(sp + 1);
      if (!valid_name(name, true)) return fail("bad metric name '" + name + "'");
      if (line[2] == 'T') {
        if (arg != "counter" && arg != "gauge" && arg != "histogram" && arg != "summary" && arg != "untyped")
          return fail("unknown type '" + arg + "'");
        auto& f = out.families[name];
        if (!f.type.empty()) return fail("a second TYPE for " + name);
        if (with_samples.count(name)) return fail("TYPE of " + name + " after its samples");
        f.type = arg;
      } else {
        if (arg.empty()) return fail("HELP of " + name + " without text");
        out.families[name].help = arg;
      }
      continue;
    }
    // name{label="value",...} value [timestamp]
    std::size_t i = 0;
    while (i < line.size() && line[i] != '{' && line[i] != ' ') ++i;
    PromSample s;
    s.name = line.substr(0, i);
    if (!valid_name(s.name, true)) return fail("bad metric name '" + s.name + "'");
    if (i < line.size() && line[i] == '{') {
      ++i;
      while (i < line.size() && line[i] != '}') {
        std::size_t eq = line.find('=', i);
        if (eq == std::string::npos) return fail("a label without '='");
        const std::string lname = line.substr(i, eq - i);
        if (!valid_name(lname, false) || lname.rfind("__", 0) == 0) return fail("bad label name '" + lname + "'");
        i = eq + 1;
        if (i >= line.size() || line[i] != '"') return fail("label " + lname + ": value not quoted");
        ++i;
        std::string value;
        for (;;) {
          if (i >= line.size()) return fail("label " + lname + ": unterminated value");
          const char c = line[i++];
          if (c == '"') break;
          if (c == '\\') {
            if (i >= line.size()) return fail("label " + lname + ": a lone backslash");
            const char e = line[i++];
            if (e == '\\')
              value += '\\';
            else if (e == '"')
              value += '"';
            else if (e == 'n')
              value += '\n';
            else
              return fail(std::string("label ") + lname + ": bad escape \\" + e);
          } else {
            value += c;
          }
        }
        if (s.labels.count(lname)) return fail("label " + lname + " twice");
        s.labels[lname] = value;
        if (i < line.size() && line[i] == ',')
          ++i;
        else if (i < line.size() && line[i] != '}')
          return fail("expected ',' or '}' after label " + lname);
      }
      if (i >= line.size()) return fail("labels without '}'");
      ++i;
    }
    if (i >= line.size() || line[i] != ' ') return fail("no space before the value");
    const std::string rest = line.substr(i + 1);
    const auto sp = rest.find(' ');
    const auto value = parse_value(rest.substr(0, sp));
    if (!value) return fail("bad value '" + rest.substr(0, sp) + "'");
    if (sp != std::string::npos) {
      const std::string ts = rest.substr(sp + 1);
      if (ts.empty() || ts.find_first_not_of("-0123456789") != std::string::npos)
        return fail("bad timestamp '" + ts + "'");
    }
    s.value = *value;
    const std::string family = family_of(s.name, out.families);
    if (family.empty() || out.families.at(family).type.empty()) return fail(s.name + " before its TYPE");
    auto& f = out.families.at(family);
    const bool histogram = f.type == "histogram";
    if (histogram && s.name == family) return fail(s.name + ": a histogram's samples are _bucket, _sum, _count");
    if (!histogram && f.type != "summary" && s.name != family) return fail(s.name + " does not belong to " + family);
    if (f.type == "counter" && (s.value < 0 || std::isnan(s.value))) return fail(s.name + ": a counter below 0");
    std::string series = s.name + "{";
    for (const auto& [k, v] : s.labels) series += k + "=" + v + ",";
    if (!seen_series.insert(series + "}").second) return fail("series " + series + "} twice");
    with_samples.insert(family);
    f.samples.push_back(std::move(s));
  }
  for (const auto& [name, f] : out.families) {
    if (f.type.empty()) return fail(name + ": HELP without TYPE");
    if (f.type == "histogram") {
      const std::string why = check_histogram(name, f);
      if (!why.empty()) return fail(why);
    }
  }
  return out;
}

}  // namespace schedlab::testing
