// Located YAML reading.
#include "util/yaml_util.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "util/error.h"
#include "util/input_files.h"
#include "util/parse.h"
#include "util/suggest.h"
#include "util/text.h"

namespace schedlab::util {

namespace fs = std::filesystem;

// Uses the error_code forms throughout: a name too long or a loop of links must not throw.
std::string file_problem(const std::string& path, bool any_kind) {
  if (path.empty()) return "no file name given";
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (ec) {
    if (ec == std::errc::no_such_file_or_directory || ec == std::errc::not_a_directory) return "no such file";
    return "cannot open file: " + ec.message();
  }
  if (fs::is_directory(st)) return "is a folder, expected a file";
  if (!any_kind && !fs::is_regular_file(st)) return "is not a regular file";
  return "";
}

std::string read_config_file(const std::string& path) {
  if (std::string problem = file_problem(path, false); !problem.empty()) {
    throw InputError(path, 0, "", problem == "no such file" ? "cannot open file (no such file)" : problem);
  }
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(path, ec);
  if (!ec && size > kMaxConfigFileBytes)
    throw InputError(path, 0, "",
                     fmt::format("file is {} bytes, more than the {} MiB a configuration file may have", size,
                                 kMaxConfigFileBytes >> 20));
  note_input_file(path);
  try {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, 0, "", "cannot open file");
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw InputError(path, 0, "", "cannot read file");
    return std::move(text).str();
  } catch (const std::ios_base::failure& e) {  // libstdc++ throws from underflow on read errors
    throw InputError(path, 0, "", std::string("cannot read file: ") + e.what());
  }
}

namespace {

// How a walk reached a node: the key (in a map) or the index (in a list) under the frame
// above. Spelled out as a dotted path only for a message.
struct PathFrame {
  const PathFrame* up = nullptr;
  const YAML::Node* key = nullptr;  // null for a list item
  std::size_t index = 0;
};

std::string path_of(const PathFrame* f) {
  std::vector<std::string> parts;
  for (; f; f = f->up)
    parts.push_back(f->key ? (f->key->IsScalar() ? f->key->Scalar() : std::string("?"))
                           : "[" + std::to_string(f->index) + "]");
  std::string out;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    if (!out.empty() && it->front() != '[') out += '.';
    out += *it;
  }
  return out;
}

// The line of the nearest key on the way to a node. A node reached through an alias carries
// the anchor's mark, not the alias's, so the key under which the alias stands says where.
long line_near(const PathFrame* f, const YAML::Node& node) {
  for (; f; f = f->up)
    if (f->key) return line_of(*f->key);
  return line_of(node);
}

// The checks parse_yaml makes on a parsed document, in one walk that visits every list and map
// once: keys given twice in a map, and what aliases expand to. yaml-cpp gives a node no
// identity to hash, so lists and maps already walked are found by their mark's position and
// told apart by Node::is (null nodes may share a position).
class DocumentCheck {
 public:
  explicit DocumentCheck(const std::string& name) : name_(name) {}
  void run(const YAML::Node& root) { visit(root, nullptr, 0); }

 private:
  struct Shape {
    std::uint64_t nodes = 1;  // with aliases expanded
    int nesting = 0;          // lists and maps within each other, this one included
  };
  struct Seen {
    YAML::Node node;
    Shape shape;
    bool open = true;  // still being walked: an alias of it is a cycle
  };

  // `depth`: the lists and maps around `node`.
  Shape visit(const YAML::Node& node, const PathFrame* at, int depth) {
    if (node.IsScalar()) check_utf8(node, at);
    if (!node.IsSequence() && !node.IsMap()) return Shape{};
    const int pos = node.Mark().pos;
    auto [first, last] = by_pos_.equal_range(pos);
    for (auto it = first; it != last; ++it) {
      const Seen& seen = seen_[it->second];
      if (!seen.node.is(node)) continue;
      if (seen.open)
        throw InputError(name_, line_near(at, node), path_of(at),
                         fmt::format("an alias refers to the list or map that contains it (anchored at line {})",
                                     line_of(node)));
      alias_nodes_ += seen.shape.nodes;
      if (alias_nodes_ > kMaxYamlAliasNodes)
        throw InputError(name_, line_near(at, node), path_of(at),
                         fmt::format("YAML aliases stand for more than {} nodes (an alias bomb?); a configuration "
                                     "file may expand to at most that many through aliases",
                                     kMaxYamlAliasNodes));
      if (depth + seen.shape.nesting > kMaxYamlNesting)
        throw InputError(name_, line_near(at, node), path_of(at),
                         fmt::format("YAML nested too deeply once aliases are expanded (more than {} levels of "
                                     "lists and maps)",
                                     kMaxYamlNesting));
      return seen.shape;
    }
    const std::size_t me = seen_.size();
    seen_.push_back(Seen{node, {}, true});
    by_pos_.emplace(pos, me);
    Shape shape;
    int inner = 0;
    auto add = [&](const Shape& child) {
      shape.nodes += child.nodes;
      inner = std::max(inner, child.nesting);
    };
    if (node.IsSequence()) {
      std::size_t i = 0;
      for (const auto& item : node) {
        const PathFrame frame{at, nullptr, i++};
        add(visit(item, &frame, depth + 1));
      }
    } else {
      check_unique_keys(node, at);
      for (const auto& kv : node) {
        const PathFrame frame{at, &kv.first, 0};
        add(visit(kv.first, &frame, depth + 1));
        add(visit(kv.second, &frame, depth + 1));
      }
    }
    shape.nesting = inner + 1;
    seen_[me].shape = shape;
    seen_[me].open = false;
    return shape;
  }

  // The edge where text from every YAML file and --set value enters (util/text.h): yaml-cpp
  // takes any byte, and invalid UTF-8 ends, much later, in a JSON writer's exception.
  void check_utf8(const YAML::Node& scalar, const PathFrame* at) {
    const std::string& text = scalar.Scalar();
    const std::size_t bad = utf8_error_at(text);
    if (bad == std::string::npos) return;
    throw InputError(name_, line_of(scalar), path_of(at),
                     fmt::format("not valid UTF-8: byte 0x{:02x} at offset {} of '{}'",
                                 static_cast<unsigned>(static_cast<unsigned char>(text[bad])), bad, printable(text)));
  }

  // yaml-cpp keeps every pair of a map, a key given twice included, and a lookup finds the
  // first: the second would be ignored while run.yaml still shows it.
  void check_unique_keys(const YAML::Node& map, const PathFrame* at) {
    if (map.size() < 2) return;
    std::unordered_map<std::string_view, long> lines;
    lines.reserve(map.size());
    for (const auto& kv : map) {
      if (!kv.first.IsScalar()) continue;  // key_of reports a list or map used as a key
      const std::string& key = kv.first.Scalar();
      auto [it, added] = lines.emplace(key, line_of(kv.first));
      if (added) continue;
      const PathFrame frame{at, &kv.first, 0};
      throw InputError(name_, line_of(kv.first), path_of(&frame),
                       it->second > 0 ? fmt::format("key '{}' given twice in one map (first at line {})", key,
                                                    it->second)
                                      : fmt::format("key '{}' given twice in one map", key));
    }
  }

  const std::string& name_;
  std::vector<Seen> seen_;
  std::unordered_multimap<int, std::size_t> by_pos_;
  std::uint64_t alias_nodes_ = 0;
};

// The 1-based line of the `---` that starts the document whose root is at `root`, or the
// root's own line when no such line comes before it.
long document_start_line(const std::string& text, const YAML::Mark& root) {
  long line = 0, found = 0;
  std::size_t start = 0;
  while (start < text.size() && line <= root.line) {
    if (text.compare(start, 3, "---") == 0) found = line + 1;
    const std::size_t nl = text.find('\n', start);
    if (nl == std::string::npos) break;
    start = nl + 1;
    ++line;
  }
  return found > 0 ? found : root.line + 1;
}

}  // namespace

namespace {
// Listens to a document's events without building it; remembers where the document starts.
class DocumentStart final : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override { mark_ = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
  const YAML::Mark& mark() const { return mark_; }

 private:
  YAML::Mark mark_;
};

// The first document of `text`, and the start of a second one when there is one. Not
// YAML::LoadAll: on some malformed input (a fuzzer found one) yaml-cpp 0.7's parser hands out
// empty documents without end, and LoadAll collects them until memory runs out. Two are
// all we ask for.
//
// A block map that starts in the first column ends only at the end of the text or at a line
// that starts with a document marker (`---`, `...`) or a directive (`%`) (any other line in
// the first column is one of its keys or malformed), so a file whose first document is such a
// map and that has none of those lines (nor a byte order mark after its start) holds one
// document and is parsed once: every configuration file schedlab ships, in half the time. A
// flow collection, a scalar or an indented map may be followed by a second document without
// a marker (`[1]` then `[2]`), so those are parsed again.
bool may_hold_second_document(const YAML::Node& first, const std::string& text) {
  if (!first.IsMap() || first.Style() != YAML::EmitterStyle::Block || first.Mark().column != 0) return true;
  if (text.find("\xEF\xBB\xBF", 1) != std::string::npos) return true;
  for (std::size_t at = 0; at < text.size();) {
    const char c = text[at];
    if (c == '%' || text.compare(at, 3, "---") == 0 || text.compare(at, 3, "...") == 0) return true;
    at = text.find_first_of("\r\n", at);
    if (at == std::string::npos) break;
    ++at;
  }
  return false;
}

std::pair<YAML::Node, std::optional<YAML::Mark>> first_document(const std::string& text) {
  YAML::Node first = YAML::Load(text);
  if (!may_hold_second_document(first, text)) return {first, std::nullopt};
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStart skip, second;
  if (!parser.HandleNextDocument(skip) || !parser.HandleNextDocument(second)) return {first, std::nullopt};
  return {first, second.mark()};
}
}  // namespace

YAML::Node parse_yaml(const std::string& text, const std::string& name) {
  std::pair<YAML::Node, std::optional<YAML::Mark>> documents;
  try {
    documents = first_document(text);
  } catch (const YAML::DeepRecursion& e) {
    throw InputError(name, e.mark.line + 1, "",
                     fmt::format("YAML nested too deeply (more than {} levels of lists and maps)", e.depth() - 1));
  } catch (const YAML::ParserException& e) {
    throw InputError(name, e.mark.line + 1, "", "malformed YAML: " + e.msg);
  } catch (const YAML::Exception& e) {
    throw InputError(name, e.mark.line >= 0 ? e.mark.line + 1 : 0, "", "malformed YAML: " + e.msg);
  }
  if (documents.second)
    throw InputError(name, document_start_line(text, *documents.second), "",
                     "a second YAML document ('---') in one file: a file holds one document; merge them or "
                     "remove the separator");
  if (!documents.first) return YAML::Node();  // an empty file, or comments only
  DocumentCheck(name).run(documents.first);
  return documents.first;
}

YAML::Node load_yaml_file(const std::string& path) { return parse_yaml(read_config_file(path), path); }

void require_file(const std::string& path, const YAML::Node& node, const At& at, bool any_kind) {
  std::string problem = file_problem(path, any_kind);
  if (problem.empty()) return;
  if (problem == "no such file") fail(node, at, "no such file '" + path + "'");
  fail(node, at, "'" + path + "': " + problem);
}

std::string key_of(const YAML::Node& key, const At& at) {
  if (!key.IsScalar()) fail(key, at, "a key must be a plain name, not a list or a map");
  return key.Scalar();
}

long line_of(const YAML::Node& node) {
  if (!node.IsDefined()) return 0;
  auto m = node.Mark();
  return m.line < 0 ? 0 : m.line + 1;
}

void fail(const YAML::Node& node, const At& at, const std::string& what) {
  throw InputError(at.file, line_of(node), at.path, what);
}

void require_map(const YAML::Node& node, const At& at) {
  if (!node.IsMap()) fail(node, at, "expected a map of keys");
}

void check_keys(const YAML::Node& map, const std::vector<std::string>& allowed, const At& at) {
  require_map(map, at);
  for (const auto& kv : map) {
    std::string key = key_of(kv.first, at);
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string msg = "unknown key '" + key + "'";
    std::string near = closest_match(key, allowed);
    if (!near.empty()) msg += "; did you mean '" + near + "'?";
    msg += " valid: " + join(allowed, ", ");
    throw InputError(at.file, line_of(kv.first), (at / key).path, msg);
  }
}

std::string get_string(const YAML::Node& node, const At& at) {
  if (!node.IsScalar()) fail(node, at, "expected a single value");
  return node.Scalar();
}

double get_double(const YAML::Node& node, const At& at) {
  double v;
  if (!node.IsScalar() || !try_parse_double(node.Scalar(), v))
    fail(node, at, "expected a number, got '" + (node.IsScalar() ? node.Scalar() : std::string("a non-scalar")) + "'");
  return v;
}

double get_positive(const YAML::Node& node, const At& at) {
  double v = get_double(node, at);
  if (!(v > 0)) fail(node, at, "must be greater than 0, got " + node.Scalar());
  return v;
}

std::int64_t get_int(const YAML::Node& node, const At& at, std::int64_t min) {
  std::int64_t v;
  if (!node.IsScalar() || !try_parse_int(node.Scalar(), v))
    fail(node, at, "expected an integer, got '" + (node.IsScalar() ? node.Scalar() : std::string("a non-scalar")) + "'");
  if (v < min) fail(node, at, "must be at least " + std::to_string(min) + ", got " + node.Scalar());
  return v;
}

std::uint32_t get_count(const YAML::Node& node, const At& at, std::uint32_t hi) {
  return get_int_in<std::uint32_t>(node, at, 1, hi);
}

double get_real_in(const YAML::Node& node, const At& at, double lo, double hi, bool lo_open) {
  const double v = get_double(node, at);
  const std::string field = at.path;
  return checked_real(v, FieldContext{at.file, line_of(node), field}, lo, hi, lo_open);
}

bool get_bool(const YAML::Node& node, const At& at) {
  std::string s = get_string(node, at);
  if (s == "true" || s == "yes" || s == "on") return true;
  if (s == "false" || s == "no" || s == "off") return false;
  fail(node, at, "expected true or false, got '" + s + "'");
}

std::vector<std::string> get_string_list(const YAML::Node& node, const At& at) {
  std::vector<std::string> out;
  if (node.IsNull()) return out;
  if (node.IsScalar()) return {node.Scalar()};
  if (!node.IsSequence()) fail(node, at, "expected a value or a list of values");
  for (const auto& item : node) out.push_back(get_string(item, at));
  return out;
}

std::vector<double> get_double_list(const YAML::Node& node, const At& at) {
  std::vector<double> out;
  if (node.IsScalar()) return {get_double(node, at)};
  if (!node.IsSequence()) fail(node, at, "expected a list of numbers");
  for (const auto& item : node) out.push_back(get_double(item, at));
  return out;
}

std::string get_choice(const YAML::Node& node, const At& at, const std::vector<std::string>& valid) {
  std::string s = get_string(node, at);
  if (std::find(valid.begin(), valid.end(), s) == valid.end()) fail(node, at, unknown_name_message("value", s, valid));
  return s;
}

std::string resolve_path(const std::string& file, const std::string& relative) {
  std::filesystem::path p(relative);
  if (p.is_absolute()) return relative;
  return (std::filesystem::path(file).parent_path() / p).lexically_normal().string();
}

}  // namespace schedlab::util
