// Path patterns matched segment by segment; the first matching route wins.
#include "emu/net/router.h"

#include <fmt/format.h>

#include <set>

namespace schedlab::emu {

namespace {

std::vector<std::string> path_segments(std::string_view path) {
  std::vector<std::string> out;
  std::size_t start = path.starts_with('/') ? 1 : 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    out.emplace_back(path.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

bool is_parameter(const std::string& segment) {
  return segment.size() > 2 && segment.front() == '{' && segment.back() == '}';
}

bool match_segments(const std::vector<std::string>& pattern, const std::vector<std::string>& path,
                    RouteParams* params) {
  if (pattern.size() != path.size()) return false;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (is_parameter(pattern[i])) {
      if (path[i].empty()) return false;
      if (params) (*params)[pattern[i].substr(1, pattern[i].size() - 2)] = path[i];
    } else if (pattern[i] != path[i]) {
      return false;
    }
  }
  return true;
}

}  // namespace

Router& Router::add(std::string method, std::string_view pattern, RouteHandler handler) {
  routes_.push_back(Route{std::move(method), path_segments(pattern), std::move(handler)});
  return *this;
}

void Router::route(const HttpRequest& request, Responder respond) const {
  const auto segments = path_segments(request.target);
  std::set<std::string> allowed;
  for (const auto& r : routes_) {
    if (!match_segments(r.segments, segments, nullptr)) continue;
    if (r.method != request.method) {
      allowed.insert(r.method);
      continue;
    }
    RouteParams params;
    match_segments(r.segments, segments, &params);
    r.handler(request, params, respond);
    return;
  }
  if (allowed.empty()) {
    respond(error_response(404, fmt::format("no route {}", request.target)));
    return;
  }
  std::string allow;
  for (const auto& m : allowed) allow += (allow.empty() ? "" : ", ") + m;
  HttpResponse r = error_response(405, fmt::format("{} does not take {}; allowed: {}", request.target, request.method, allow));
  r.headers.emplace_back("Allow", allow);
  respond(std::move(r));
}

HttpHandler Router::handler() const {
  auto self = std::make_shared<const Router>(*this);
  return [self](const HttpRequest& request, Responder respond) { self->route(request, std::move(respond)); };
}

HttpResponse json_response(int status, nlohmann::json body) {
  if (body.is_object() && !body.contains("version")) body["version"] = kProtocolVersion;
  return HttpResponse{status, dump_json(body), "application/json", {}};
}

HttpResponse error_response(int status, std::string_view message) {
  return HttpResponse{status, dump_json(error_json(message)), "application/json", {}};
}

HttpResponse error_response(const ProtocolError& error) { return error_response(error.http_status, error.message); }

}  // namespace schedlab::emu
