// Routing for the HTTP server: handlers registered by method and path pattern
// ("/v1/jobs/{id}/stop"), with the protocol's answers for what matches none (404 for an
// unknown path, 405 with Allow for a known path and another method), and helpers to answer
// with protocol JSON. The controller's API and the agents' routes are both built on it.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "emu/net/http_server.h"
#include "emu/protocol.h"

namespace schedlab::emu {

// The values of a pattern's {name} segments: "/v1/jobs/{id}/stop" on "/v1/jobs/7/stop" -> {id: "7"}.
using RouteParams = std::map<std::string, std::string>;
using RouteHandler = std::function<void(const HttpRequest&, const RouteParams&, Responder)>;

class Router {
 public:
  // `pattern` is a path whose segments are literal or {name} (one whole, non-empty segment).
  Router& add(std::string method, std::string_view pattern, RouteHandler handler);
  // Routes one request (404 / 405 when no route matches).
  void route(const HttpRequest& request, Responder respond) const;
  // A server handler that routes with a copy of this router.
  HttpHandler handler() const;

 private:
  struct Route {
    std::string method;
    std::vector<std::string> segments;
    RouteHandler handler;
  };
  std::vector<Route> routes_;
};

// An answer with a JSON body; "version" is added to an object that lacks it.
HttpResponse json_response(int status, nlohmann::json body);
// {"version":1,"error":message} with `status`.
HttpResponse error_response(int status, std::string_view message);
HttpResponse error_response(const ProtocolError& error);

// Parses a request body with `parse` (parse_poll_request, ...); on failure answers the
// ProtocolError and returns false.
template <class T>
bool parse_or_refuse(const Parsed<T>& parsed, const Responder& respond) {
  if (parsed) return true;
  respond(error_response(parsed.error()));
  return false;
}

}  // namespace schedlab::emu
