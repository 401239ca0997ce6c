// The controller's API for people (docs/emulation.md, with curl examples): read the live state
// (GET /v1/cluster, /v1/jobs, /v1/queue with each waiting job's reason), submit a job while
// the emulation runs (POST /v1/jobs), stop one for good (POST /v1/jobs/{id}/stop). Every
// request is answered from the loop's thread at its next instant (through the wall clock's
// inbox; submissions and stops as journaled inputs, emu/controller/inbox.h), so the API never
// reads the scheduler while it decides. Bodies are checked as the
// agents' messages are (emu/protocol.h): a malformed one gets 400 naming the field. The
// parsers of bodies and queries are public for the tests and the fuzz target (api_body).
#pragma once

#include "cluster/topology.h"
#include "emu/controller/inbox.h"
#include "emu/controller/wall_clock.h"
#include "emu/net/router.h"

namespace schedlab::emu {

// The body of POST /v1/jobs: a job to submit (400 naming the field when it is not one; its
// GPU models must be in `catalog`).
Parsed<sim::SubmittedJob> parse_submit_body(std::string_view body, const cluster::GpuCatalog& catalog);
// The body of POST /v1/services/{name}/scale: the number of instances wanted.
Parsed<std::uint32_t> parse_scale_body(std::string_view body);
// ?limit=N of GET /v1/jobs and /v1/queue (1..100000; 1000 when absent), or the 400 to answer.
Parsed<std::size_t> parse_limit(const std::map<std::string, std::string>& query);

// Adds the API routes to `router`. `agent_state(host)` says "up", "lost" or "absent".
void add_api_routes(Router& router, WallClock& clock, Inbox& inbox, const cluster::Topology& topo,
                    std::function<std::string(cluster::HostId)> agent_state);

}  // namespace schedlab::emu
