#include "rdma_device.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace lw::rdma {

namespace {

std::string gid_hex(const ibv_gid& g) {
  char buf[33];
  for (int i = 0; i < 16; ++i) std::snprintf(buf + 2 * i, 3, "%02x", g.raw[i]);
  return std::string(buf, 32);
}

bool parse_gid_hex(const std::string& s, ibv_gid* g) {
  if (s.size() != 32) return false;
  for (int i = 0; i < 16; ++i) {
    unsigned v = 0;
    if (std::sscanf(s.c_str() + 2 * i, "%2x", &v) != 1) return false;
    g->raw[i] = static_cast<uint8_t>(v);
  }
  return true;
}

bool is_zero(const ibv_gid& g) {
  for (uint8_t b : g.raw)
    if (b) return false;
  return true;
}

bool is_ipv4_mapped(const ibv_gid& g) {
  for (int i = 0; i < 10; ++i)
    if (g.raw[i]) return false;
  return g.raw[10] == 0xff && g.raw[11] == 0xff;
}

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

}  // namespace

json QpEndpoint::to_json() const {
  return {{"qpn", qpn}, {"psn", psn}, {"lid", lid}, {"gid", gid_hex(gid)}, {"mtu", mtu}};
}

std::string QpEndpoint::from_json(const json& j, QpEndpoint* out) {
  QpEndpoint e;
  if (!j.is_object() || !j.contains("qpn") || !j["qpn"].is_number_unsigned() ||
      !j.contains("psn") || !j["psn"].is_number_unsigned() || !j.contains("lid") ||
      !j["lid"].is_number_unsigned() || !j.contains("gid") || !j["gid"].is_string() ||
      !j.contains("mtu") || !j["mtu"].is_number_unsigned())
    return "malformed queue-pair endpoint";
  e.qpn = j["qpn"].get<uint32_t>();
  e.psn = j["psn"].get<uint32_t>() & 0xffffff;
  e.lid = j["lid"].get<uint16_t>();
  e.mtu = j["mtu"].get<uint32_t>();
  if (!parse_gid_hex(j["gid"].get<std::string>(), &e.gid)) return "malformed GID";
  *out = e;
  return {};
}

std::string RdmaDevice::open(const std::string& name, uint32_t port, int gid_index,
                             std::unique_ptr<RdmaDevice>* out) {
  int n = 0;
  ibv_device** list = ibv_get_device_list(&n);
  if (!list)
    return errno_text("ibv_get_device_list") +
           " (this kernel has no RDMA support: no NIC and no Soft-RoCE; run inside "
           "scripts/softroce-vm.sh)";
  ibv_device* chosen = nullptr;
  std::string names;
  for (int i = 0; i < n; ++i) {
    names += std::string(names.empty() ? "" : ", ") + ibv_get_device_name(list[i]);
    if (!chosen && (name.empty() || name == ibv_get_device_name(list[i]))) chosen = list[i];
  }
  if (!chosen) {
    ibv_free_device_list(list);
    if (n == 0)
      return "no RDMA device found (no NIC and no Soft-RoCE: `rdma link add rxe0 type rxe netdev "
             "IFACE`, or run inside scripts/softroce-vm.sh)";
    return "RDMA device \"" + name + "\" not found; devices here: " + names;
  }
  std::unique_ptr<RdmaDevice> d(new RdmaDevice());
  d->name_ = ibv_get_device_name(chosen);
  d->ctx_ = ibv_open_device(chosen);
  ibv_free_device_list(list);
  if (!d->ctx_) return errno_text(("ibv_open_device " + d->name_).c_str());
  if (ibv_query_device(d->ctx_, &d->attr_)) return errno_text("ibv_query_device");
  ibv_device_attr_ex ex{};
  if (ibv_query_device_ex(d->ctx_, nullptr, &ex) == 0) d->max_dm_size_ = ex.max_dm_size;
  if (port < 1 || port > d->attr_.phys_port_cnt)
    return d->name_ + " has " + std::to_string(d->attr_.phys_port_cnt) + " port(s); ib_port " +
           std::to_string(port) + " does not exist";
  d->port_ = static_cast<uint8_t>(port);
  if (ibv_query_port(d->ctx_, d->port_, &d->port_attr_)) return errno_text("ibv_query_port");
  if (d->port_attr_.state != IBV_PORT_ACTIVE)
    return d->name_ + " port " + std::to_string(port) + " is not active";
  if (gid_index >= 0) {
    d->gid_index_ = gid_index;
    if (ibv_query_gid(d->ctx_, d->port_, gid_index, &d->gid_) || is_zero(d->gid_))
      return d->name_ + " has no GID at index " + std::to_string(gid_index);
  } else if (d->is_roce()) {
    int fallback = -1;
    d->gid_index_ = -1;
    for (int i = 0; i < d->port_attr_.gid_tbl_len && i < 256; ++i) {
      ibv_gid_entry entry{};
      if (ibv_query_gid_ex(d->ctx_, d->port_, i, &entry, 0)) continue;
      ibv_gid g;
      std::memcpy(g.raw, entry.gid.raw, 16);
      if (is_zero(g)) continue;
      if (fallback < 0) fallback = i;
      if (entry.gid_type == IBV_GID_TYPE_ROCE_V2 && is_ipv4_mapped(g)) {
        d->gid_index_ = i;
        break;
      }
    }
    if (d->gid_index_ < 0) d->gid_index_ = fallback;
    if (d->gid_index_ < 0) return d->name_ + " has no usable GID (is its netdev up with an address?)";
    ibv_query_gid(d->ctx_, d->port_, d->gid_index_, &d->gid_);
  } else {
    d->gid_index_ = 0;
    ibv_query_gid(d->ctx_, d->port_, 0, &d->gid_);
  }
  d->pd_ = ibv_alloc_pd(d->ctx_);
  if (!d->pd_) return errno_text("ibv_alloc_pd");
  *out = std::move(d);
  return {};
}

RdmaDevice::~RdmaDevice() {
  if (pd_) ibv_dealloc_pd(pd_);
  if (ctx_) ibv_close_device(ctx_);
}

QpEndpoint RdmaDevice::endpoint(const ibv_qp* qp, uint32_t psn) const {
  QpEndpoint e;
  e.qpn = qp->qp_num;
  e.psn = psn & 0xffffff;
  e.lid = port_attr_.lid;
  e.gid = gid_;
  e.mtu = port_attr_.active_mtu;
  return e;
}

std::string RdmaDevice::create_qp(ibv_cq* cq, uint32_t depth, ibv_qp** out, uint32_t recv_depth,
                                  ibv_pd* pd) const {
  ibv_qp_init_attr init{};
  init.send_cq = cq;
  init.recv_cq = cq;
  init.qp_type = IBV_QPT_RC;
  init.sq_sig_all = 0;
  init.cap.max_send_wr = depth;
  init.cap.max_recv_wr = recv_depth;
  init.cap.max_send_sge = 1;
  init.cap.max_recv_sge = 1;
  ibv_qp* qp = ibv_create_qp(pd ? pd : pd_, &init);
  if (!qp) return errno_text("ibv_create_qp");
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_INIT;
  a.pkey_index = 0;
  a.port_num = port_;
  a.qp_access_flags = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC;
  if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) {
    std::string e = errno_text("ibv_modify_qp(INIT)");
    ibv_destroy_qp(qp);
    return e;
  }
  *out = qp;
  return {};
}

std::string RdmaDevice::connect_qp(ibv_qp* qp, uint32_t local_psn, const QpEndpoint& remote) const {
  const uint8_t rd_atomic = static_cast<uint8_t>(std::min(16, std::max(1, attr_.max_qp_rd_atom)));
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_RTR;
  a.path_mtu = static_cast<ibv_mtu>(std::min<uint32_t>(remote.mtu, port_attr_.active_mtu));
  a.dest_qp_num = remote.qpn;
  a.rq_psn = remote.psn;
  a.max_dest_rd_atomic = rd_atomic;
  a.min_rnr_timer = 12;
  a.ah_attr.port_num = port_;
  a.ah_attr.dlid = remote.lid;
  if (is_roce() || !is_zero(remote.gid)) {
    a.ah_attr.is_global = 1;
    a.ah_attr.grh.dgid = remote.gid;
    a.ah_attr.grh.sgid_index = static_cast<uint8_t>(gid_index_);
    a.ah_attr.grh.hop_limit = 64;
  }
  if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                                IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
    return errno_text("ibv_modify_qp(RTR)");
  ibv_qp_attr r{};
  r.qp_state = IBV_QPS_RTS;
  r.timeout = 16;   // 4.096 us * 2^16 = 268 ms per attempt
  r.retry_cnt = 7;  // a vanished peer surfaces after about 2 s
  r.rnr_retry = 7;
  r.sq_psn = local_psn & 0xffffff;
  r.max_rd_atomic = rd_atomic;
  if (ibv_modify_qp(qp, &r, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                                IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
    return errno_text("ibv_modify_qp(RTS)");
  return {};
}

std::string describe_wc_status(ibv_wc_status s) {
  std::string base = ibv_wc_status_str(s);
  switch (s) {
    case IBV_WC_RETRY_EXC_ERR: return base + " (the memory node stopped answering)";
    case IBV_WC_REM_ACCESS_ERR: return base + " (address or rkey outside the registered region)";
    case IBV_WC_WR_FLUSH_ERR: return base + " (an earlier request on the queue pair failed)";
    default: return base;
  }
}

}  // namespace lw::rdma
