// Port blocks claimed by a bound socket, and ports lent within them (see gang_ports.h).
#include "emu/controller/gang_ports.h"

#include <fmt/format.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/error.h"

namespace schedlab::emu {

namespace {

// A TCP socket bound to 0.0.0.0:port, or -1 when the port is taken. `reuse`: SO_REUSEADDR, so
// that only a listener or a socket bound without it (another claim, a client's local port)
// stands in the way, and a connection of an earlier gang in TIME_WAIT does not.
int bind_any(std::uint16_t port, bool reuse) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  const int one = 1;
  if (reuse) ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  a.sin_port = htons(port);
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Whether nothing else on this machine holds `port` (a rank 0 there could listen on it).
bool looks_free(std::uint16_t port) {
  const int fd = bind_any(port, true);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

}  // namespace

GangPorts::GangPorts(GangPortsConfig config) : config_(config) {}

GangPorts::~GangPorts() {
  for (auto& b : blocks_)
    if (b.fd >= 0) ::close(b.fd);
}

bool GangPorts::claim_next() {
  while (tried_ < config_.blocks) {
    const std::uint32_t first = config_.first + std::uint32_t{tried_} * config_.block;
    ++tried_;
    if (config_.block < 2 || first + config_.block - 1 > 65535) return false;
    const int fd = bind_any(static_cast<std::uint16_t>(first), false);
    if (fd < 0) continue;  // another emulation's block, or a port something else holds
    Block b;
    b.first = static_cast<std::uint16_t>(first);
    b.fd = fd;
    b.holders.assign(config_.block - 1u, 0);
    blocks_.push_back(std::move(b));
    return true;
  }
  return false;
}

std::uint16_t GangPorts::lend(std::uint32_t holders) {
  for (;;) {
    std::size_t total = 0;
    for (const auto& b : blocks_) total += b.holders.size();
    for (std::size_t step = 0; step < total; ++step) {
      std::size_t i = (cursor_ + step) % total;
      for (auto& b : blocks_) {
        if (i >= b.holders.size()) {
          i -= b.holders.size();
          continue;
        }
        const auto port = static_cast<std::uint16_t>(b.first + 1 + i);
        if (b.holders[i] == 0 && looks_free(port)) {
          b.holders[i] = holders == 0 ? 1 : holders;
          cursor_ = (cursor_ + step + 1) % total;
          return port;
        }
        break;
      }
    }
    const std::size_t before = total;
    if (!claim_next())
      throw util::EnvironmentError(fmt::format(
          "no free rendezvous port for a gang: the {} port(s) of this emulation's blocks are lent or taken, and "
          "ports {} to {} hold no other block of {} that can be claimed (other emulations or programs hold them)",
          before, config_.first, config_.first + std::uint32_t{config_.blocks} * config_.block - 1, config_.block));
    cursor_ = before;  // the new block's first port
  }
}

void GangPorts::give_back(std::uint16_t port) {
  for (auto& b : blocks_) {
    if (port <= b.first || port - b.first - 1u >= b.holders.size()) continue;
    auto& h = b.holders[port - b.first - 1u];
    if (h > 0) --h;
    return;
  }
}

std::vector<std::uint16_t> GangPorts::claimed() const {
  std::vector<std::uint16_t> out;
  for (const auto& b : blocks_) out.push_back(b.first);
  return out;
}

}  // namespace schedlab::emu
