// Paper 003's dumbbell (settings S1 and S2) in ns-3, for the cross-check of schedtcp's
// packet simulator (crates/sim). Replays a flow list (CSV `arrival_seconds,size_bytes,source`,
// the format of sim::workload::load_trace) and writes one line per flow plus bottleneck
// statistics, and the wall-clock time of the simulation with the packets the bottleneck
// forwarded (the speed comparison with `dumbbell_speed`).
//
// Topology: 10 senders -- r1 == r2 -- 10 receivers, a 10 Mbit/s bottleneck; --setting=S1:
// access links 10 Mbit/s, delays 1 ms (access) + 4 ms (bottleneck) + 1 ms (receiver access);
// --setting=S2: access links 2 Mbit/s, 10 + 40 + 10 ms (sim::topology::PaperSetting, as
// run2c-sim runs them); --setting=S1p is S1 (the name sim::topology::Ns3Setting gives
// run2c-sim's S1 in the cross-check); --bottleneckDelayMs overrides the bottleneck's delay
// (the cross-check's first S1 uses 1 ms, ns3/run.sh). The only finite buffer is a 100-packet drop-tail queue at r1's bottleneck device (the
// traffic-control layer is removed so the device queue is the qdisc). Its drops are
// counted where ns-3 makes them: with no qdisc, the traffic-control layer discards a packet
// when the device has stopped its full queue (trace `TcDrop`); the device queue's own
// `Drop` trace and counters stay at 0. TCP: NewReno, SMSS
// 1460 B, no timestamps, initial window 1, no delayed ACKs (DelAckCount 1), no limited
// transmit, classic recovery, maximum window 30 segments (receive buffer), min RTO 200 ms,
// SACK on or off (--sack).
//
// Background transfers (--bgFrom=N, the LBE cross-check): flows of sources N and up use
// --bgCc (ledbat, tcp-lp or newreno: ns-3's TcpLedbat, TcpLp or TcpNewReno) with TCP timestamps on both ends (ns-3's
// TcpLedbat and TcpLp read the one-way delay from them); --pairs adds the pairs they run on
// (same links as the others). At --bgWindow s the bytes their receivers have got and the
// bottleneck queue's time-average so far are recorded (.stats: bg_bytes, bg_window_s,
// window_mean_queue_packets).
//
// Build and run: ns3/run.sh, ns3/run-lbe.sh (outside CI).

#include <chrono>

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

using namespace ns3;

namespace
{

struct Flow
{
    double arrival;
    uint64_t size;
    uint32_t source;
    uint64_t written = 0;
    uint64_t received = 0;
    double delivered = -1;
    Ptr<Socket> socket;
    // What its sender did (the traces below): SYNs and data segments handed to IP, entries
    // into fast recovery and into the loss state.
    uint32_t syns = 0;
    uint64_t data_packets = 0;
    uint32_t recoveries = 0;
    uint32_t loss_entries = 0;
};

std::vector<Flow> g_flows;
// Sources from this index on carry background transfers (-1: none).
int64_t g_bg_from = -1;
std::map<std::pair<uint32_t, uint16_t>, size_t> g_by_port; // (receiver, sender port) -> flow
NodeContainer g_senders, g_receivers;
std::vector<Ipv4Address> g_rx_addr;
const uint16_t kPort = 5000;

// --traces=0 (the speed comparison): none of the trace sinks below is connected; only the
// bottleneck queue's own counters and the flows' completions are kept.
bool g_traces = true;

// --closeReceivers=1 (the speed comparison): a receiver closes its socket once the flow is
// delivered. Otherwise (the cross-check, as committed) receiver sockets stay in CLOSE_WAIT
// and their endpoints in the node's demultiplexer, a list ns-3 searches for every packet.
bool g_close_receivers = false;

// --debugFlow: the TCP segments of one flow, as its sender's and receiver's devices
// see them, what its sender hands to IP and its congestion states.
int64_t g_debug_flow = -1;
uint16_t g_debug_port = 0;

// Bottleneck statistics.
uint64_t g_enqueued = 0, g_dropped = 0, g_data_sent = 0;
double g_q_area = 0, g_q_last_t = 0;
uint32_t g_q_len = 0;

void
QueueLen(uint32_t, uint32_t now_len)
{
    double t = Simulator::Now().GetSeconds();
    g_q_area += g_q_len * (t - g_q_last_t);
    g_q_last_t = t;
    g_q_len = now_len;
}

// At the end of the background window: the bytes background receivers have got and the
// queue's integral so far.
uint64_t g_bg_bytes = 0;
double g_window_q_area = 0;

void
BackgroundWindowEnd()
{
    QueueLen(0, g_q_len);
    g_window_q_area = g_q_area;
    for (const Flow& f : g_flows)
    {
        if (g_bg_from >= 0 && (int64_t)f.source >= g_bg_from)
        {
            g_bg_bytes += f.received;
        }
    }
}

void
Enq(Ptr<const Packet>)
{
    g_enqueued++;
}

void
Drop(Ptr<const Packet>)
{
    g_dropped++;
}

// Drops anywhere else (every device queue, the IP layer): the evidence that the
// bottleneck is the only place packets are lost.
uint64_t g_other_queue_drops = 0, g_ip_drops = 0, g_phy_rx_drops = 0;

void
AnyQueueDrop(Ptr<const Packet>)
{
    g_other_queue_drops++;
}

void
IpDrop(const Ipv4Header&, Ptr<const Packet>, Ipv4L3Protocol::DropReason, Ptr<Ipv4>, uint32_t)
{
    g_ip_drops++;
}

// With no queue disc, the traffic-control layer drops a packet when the device has stopped
// its transmit queue (flow control: the device queue is full). On the bottleneck these are
// the buffer's drops, though the device queue's own counters never see them.
// Of those, packets without payload (SYNs, the handshake's ACK; under 100 B with or
// without their IP header, a data segment is over 1 kB).
uint64_t g_tc_drops = 0, g_control_drops = 0;

void
TcDrop(Ptr<const Packet> p)
{
    g_tc_drops++;
    if (p->GetSize() < 100)
    {
        g_control_drops++;
    }
}

void
PhyRxDrop(Ptr<const Packet>)
{
    g_phy_rx_drops++;
}

// Sender congestion-state transitions (ns-3's own trace): entries into fast recovery and
// into loss (RTO) state.
uint64_t g_recoveries = 0, g_rtos = 0;

void
CongState(size_t flow, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    if ((int64_t)flow == g_debug_flow)
    {
        std::cerr << Simulator::Now().GetSeconds() << " state "
                  << TcpSocketState::TcpCongStateName[now] << "\n";
    }
    if (now == TcpSocketState::CA_RECOVERY)
    {
        g_recoveries++;
        g_flows[flow].recoveries++;
    }
    if (now == TcpSocketState::CA_LOSS)
    {
        g_rtos++;
        g_flows[flow].loss_entries++;
    }
}

// Data segments a sender transmits although its receiver has already acknowledged them
// cumulatively (the whole segment is below the sender's SND.UNA when it leaves): the
// traces of the S2 cross-check show ns-3's NewReno without SACK doing this for tens of
// seconds after a retransmission timeout.
uint64_t g_below_una = 0;

void
TcpTx(size_t flow, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase> s)
{
    if (p->GetSize() > 0)
    {
        g_flows[flow].data_packets++;
    }
    else if ((h.GetFlags() & TcpHeader::SYN) && !(h.GetFlags() & TcpHeader::ACK))
    {
        g_flows[flow].syns++;
    }
    if (p->GetSize() > 0 && h.GetSequenceNumber() + p->GetSize() <= s->GetTxBuffer()->HeadSequence())
    {
        g_below_una++;
    }
    if (g_debug_port != 0 && h.GetSourcePort() == g_debug_port &&
        g_flows[g_debug_flow].socket == s)
    {
        std::cerr << Simulator::Now().GetSeconds() << " tcp-tx seq=" << h.GetSequenceNumber()
                  << " len=" << p->GetSize() << " una=" << s->GetTxBuffer()->HeadSequence()
                  << "\n";
    }
}


// The debugged flow's retransmission timeout and RTT samples (ns-3's own traces).
void
DebugRto(Time, Time now)
{
    std::cerr << Simulator::Now().GetSeconds() << " rto " << now.GetSeconds() << "\n";
}

void
DebugRtt(Time, Time now)
{
    std::cerr << Simulator::Now().GetSeconds() << " rtt " << now.GetSeconds() << "\n";
}

void
Sniff(std::string dir, uint32_t pair, Ptr<const Packet> p)
{
    if (g_debug_port == 0 || g_flows[g_debug_flow].source != pair)
    {
        return;
    }
    Ptr<Packet> c = p->Copy();
    PppHeader ppp;
    Ipv4Header ip;
    TcpHeader tcp;
    c->RemoveHeader(ppp);
    c->RemoveHeader(ip);
    c->RemoveHeader(tcp);
    if (tcp.GetSourcePort() != g_debug_port && tcp.GetDestinationPort() != g_debug_port)
    {
        return;
    }
    std::cerr << Simulator::Now().GetSeconds() << " " << dir << " "
              << TcpHeader::FlagsToString(tcp.GetFlags()) << " seq=" << tcp.GetSequenceNumber()
              << " ack=" << tcp.GetAckNumber() << " len=" << c->GetSize()
              << " win=" << tcp.GetWindowSize() << "\n";
}

// Data segments reaching a receiver that it had already received (a retransmission that
// was not needed, or a copy sent after the original arrived): per (receiver, sender port),
// the sequence numbers seen.
std::map<std::pair<uint32_t, uint16_t>, std::set<uint32_t>> g_rx_seen;
uint64_t g_dup_arrivals = 0;

void
ReceiverMacRx(uint32_t pair, Ptr<const Packet> p)
{
    // Not on the background's pairs: deserializing their TCP headers (timestamps on) from
    // this trace aborts ns-3.44 (Buffer::Iterator assertion in TcpHeader::Deserialize).
    if (g_bg_from >= 0 && (int64_t)pair >= g_bg_from)
    {
        return;
    }
    Ptr<Packet> c = p->Copy();
    PppHeader ppp;
    Ipv4Header ip;
    TcpHeader tcp;
    c->RemoveHeader(ppp);
    c->RemoveHeader(ip);
    c->RemoveHeader(tcp);
    if (c->GetSize() == 0)
    {
        return;
    }
    if (!g_rx_seen[{pair, tcp.GetSourcePort()}].insert(tcp.GetSequenceNumber().GetValue()).second)
    {
        g_dup_arrivals++;
    }
}

void
SenderTx(Ptr<const Packet> p)
{
    // Data packets leaving the senders (PPP + IP + TCP headers are 42 B; ACKs and SYNs carry
    // options but no payload).
    if (p->GetSize() > 100)
    {
        g_data_sent++;
    }
}

void
Fill(size_t i, Ptr<Socket> s, uint32_t)
{
    Flow& f = g_flows[i];
    while (f.written < f.size)
    {
        uint32_t room = s->GetTxAvailable();
        if (room == 0)
        {
            return;
        }
        uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(room, f.size - f.written));
        n = std::min<uint32_t>(n, 65536);
        int sent = s->Send(Create<Packet>(n));
        if (sent <= 0)
        {
            return;
        }
        f.written += sent;
    }
    s->Close();
}

void
Connected(size_t i, Ptr<Socket> s)
{
    Fill(i, s, s->GetTxAvailable());
}

// The side channel of tcp-lp-rules' estimator rules `exact` and `trigger` (below): the exact
// times TCP timestamps stand for, carried in packet tags (tags add no bytes on the wire).
// A background sender's data segment is tagged with the time its socket sends it (and the
// time is kept per sequence number); a background receiver keeps the send time of the last
// data segment to reach it and tags each ACK with the time it sends it and that send time;
// the sender's device reads the tag of each ACK before TCP processes it (same event).
bool g_lp_side = false;
// --bgTimestamps=0: the background's connections without TCP timestamps (their segments 12
// bytes shorter, as the foreground's and sim::tcp's); only for tcp-lp-rules with `exact` and
// `trigger`, whose estimator reads the side channel alone.
bool g_bg_timestamps = true;

class LpTimeTag : public Tag
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("LpTimeTag").SetParent<Tag>().AddConstructor<LpTimeTag>();
        return tid;
    }

    TypeId GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

    uint32_t GetSerializedSize() const override
    {
        return 16;
    }

    void Serialize(TagBuffer b) const override
    {
        b.WriteU64(sent.GetTimeStep());
        b.WriteU64(trigger.GetTimeStep());
    }

    void Deserialize(TagBuffer b) override
    {
        sent = TimeStep(b.ReadU64());
        trigger = TimeStep(b.ReadU64());
    }

    void Print(std::ostream& os) const override
    {
        os << "sent=" << sent << " trigger=" << trigger;
    }

    Time sent;    // when the packet left its TCP socket
    Time trigger; // an ACK: when the data segment that last reached the receiver was sent
};

// Per background pair: the send time of each data sequence number (its latest transmission).
std::map<uint32_t, std::map<uint32_t, Time>> g_lp_tx;
// Per background receiver: the send time of the last data segment to reach it.
std::map<uint32_t, Time> g_lp_last_data;
// The ACK a background sender's device received last (TCP processes it in the same event).
struct LpAck
{
    bool valid = false;
    uint32_t pair = 0;
    Time sent;
    Time trigger;
} g_lp_ack;

void
LpDataTx(uint32_t pair, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() == 0)
    {
        return;
    }
    LpTimeTag t;
    t.sent = Simulator::Now();
    p->AddPacketTag(t);
    g_lp_tx[pair][h.GetSequenceNumber().GetValue()] = t.sent;
}

void
LpReceiverRx(uint32_t pair, Ptr<const Packet> p)
{
    LpTimeTag t;
    if (p->PeekPacketTag(t))
    {
        g_lp_last_data[pair] = t.sent;
    }
}

void
LpReceiverTx(uint32_t pair, Ptr<const Packet> p)
{
    LpTimeTag t;
    if (p->PeekPacketTag(t) || !g_lp_last_data.count(pair))
    {
        return;
    }
    t.sent = Simulator::Now();
    t.trigger = g_lp_last_data[pair];
    p->AddPacketTag(t);
}

void
LpSenderRx(uint32_t pair, Ptr<const Packet> p)
{
    LpTimeTag t;
    g_lp_ack.valid = p->PeekPacketTag(t);
    g_lp_ack.pair = pair;
    g_lp_ack.sent = t.sent;
    g_lp_ack.trigger = t.trigger;
}

void
StartFlow(size_t i)
{
    Flow& f = g_flows[i];
    Ptr<Socket> s = Socket::CreateSocket(g_senders.Get(f.source), TcpSocketFactory::GetTypeId());
    if (g_bg_from >= 0 && (int64_t)f.source >= g_bg_from)
    {
        s->SetAttribute("Timestamp", BooleanValue(g_bg_timestamps));
    }
    s->Bind();
    Address local;
    s->GetSockName(local);
    uint16_t port = InetSocketAddress::ConvertFrom(local).GetPort();
    g_by_port[{f.source, port}] = i;
    if ((int64_t)i == g_debug_flow)
    {
        g_debug_port = port;
        std::cerr << "flow " << i << " port " << port << " at " << Simulator::Now().GetSeconds()
                  << "\n";
        s->TraceConnectWithoutContext("RTO", MakeCallback(&DebugRto));
        s->TraceConnectWithoutContext("RTT", MakeCallback(&DebugRtt));
    }
    s->SetConnectCallback(MakeBoundCallback(&Connected, i), MakeNullCallback<void, Ptr<Socket>>());
    s->SetSendCallback(MakeBoundCallback(&Fill, i));
    if (g_traces)
    {
        s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&CongState, i));
        s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&TcpTx, i));
    }
    if (g_lp_side && g_bg_from >= 0 && (int64_t)f.source >= g_bg_from)
    {
        s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&LpDataTx, f.source));
    }
    s->Connect(InetSocketAddress(g_rx_addr[f.source], kPort));
    f.socket = s;
}

void
Recv(uint32_t rx, Ptr<Socket> s)
{
    Address from;
    Ptr<Packet> p;
    while ((p = s->RecvFrom(from)) && p->GetSize() > 0)
    {
        uint16_t port = InetSocketAddress::ConvertFrom(from).GetPort();
        auto it = g_by_port.find({rx, port});
        if (it == g_by_port.end())
        {
            continue;
        }
        Flow& f = g_flows[it->second];
        f.received += p->GetSize();
        if (f.received >= f.size && f.delivered < 0)
        {
            f.delivered = Simulator::Now().GetSeconds();
            if (g_close_receivers)
            {
                s->Close();
            }
        }
    }
}

void
Accept(uint32_t rx, Ptr<Socket> s, const Address&)
{
    s->SetRecvCallback(MakeBoundCallback(&Recv, rx));
}

bool
AcceptAll(Ptr<Socket>, const Address&)
{
    return true;
}

} // namespace

namespace ns3
{

// Evidence variants (--bgCc=ledbat-ss-half-target, tcp-lp-ssthresh, ledbat-allowed-increase,
// tcp-lp-rules): ns-3's senders with rules of ours, to show what a difference between the two
// comes from.

// TcpLedbat whose slow start ends once the queuing delay reaches half the target, as
// sim::tcp's LEDBAT (crates/sim/src/tcp/sender.rs, `grow`); ns-3's leaves it only at a loss.
// The queuing delay is estimated as TcpLedbat does (the one-way delay from the timestamps,
// ms: the minimum of the last four samples less the minimum of all).
class TcpLedbatSsHalfTarget : public TcpLedbat
{
  public:
    static double s_target_ms;

    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TcpLedbatSsHalfTarget")
                                .SetParent<TcpLedbat>()
                                .AddConstructor<TcpLedbatSsHalfTarget>()
                                .SetGroupName("Internet");
        return tid;
    }

    TcpLedbatSsHalfTarget() = default;
    TcpLedbatSsHalfTarget(const TcpLedbatSsHalfTarget&) = default;

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<TcpLedbatSsHalfTarget>(this);
    }

    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt) override
    {
        TcpLedbat::PktsAcked(tcb, segmentsAcked, rtt);
        if (tcb->m_rcvTimestampValue == 0 || tcb->m_rcvTimestampEchoReply == 0 ||
            !rtt.IsPositive())
        {
            return;
        }
        uint32_t owd = tcb->m_rcvTimestampValue - tcb->m_rcvTimestampEchoReply;
        m_base = std::min(m_base, owd);
        m_current.push_back(owd);
        if (m_current.size() > 4)
        {
            m_current.erase(m_current.begin());
        }
    }

    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        if (!m_current.empty() && tcb->m_cWnd <= tcb->m_ssThresh)
        {
            uint32_t current = *std::min_element(m_current.begin(), m_current.end());
            if (2.0 * (current - m_base) >= s_target_ms)
            {
                tcb->m_ssThresh = tcb->m_cWnd - 1;
            }
        }
        TcpLedbat::IncreaseWindow(tcb, segmentsAcked);
    }

  private:
    uint32_t m_base = ~0U;
    std::vector<uint32_t> m_current;
};

double TcpLedbatSsHalfTarget::s_target_ms = 25;
NS_OBJECT_ENSURE_REGISTERED(TcpLedbatSsHalfTarget);

// TcpLp whose reaction to an early congestion indication also sets ssthresh to the new
// window, as sim::tcp's TCP-LP (`on_delay_sample`); ns-3's leaves ssthresh as it is, so
// before any loss its window slow-starts back after each halving.
class TcpLpSsthresh : public TcpLp
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TcpLpSsthresh")
                                .SetParent<TcpLp>()
                                .AddConstructor<TcpLpSsthresh>()
                                .SetGroupName("Internet");
        return tid;
    }

    TcpLpSsthresh() = default;
    TcpLpSsthresh(const TcpLpSsthresh&) = default;

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<TcpLpSsthresh>(this);
    }

    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt) override
    {
        uint32_t before = tcb->m_cWnd;
        TcpLp::PktsAcked(tcb, segmentsAcked, rtt);
        if (tcb->m_cWnd < before)
        {
            tcb->m_ssThresh = std::max(tcb->m_cWnd.Get(), 2 * tcb->m_segmentSize);
        }
    }
};

NS_OBJECT_ENSURE_REGISTERED(TcpLpSsthresh);

// TCP-LP with ns-3's estimator and any of sim::tcp's rules (--bgCc=tcp-lp-rules, --lpRules a
// comma-separated subset of the names below): shows which of the rules by which ours departs
// from ns-3's TcpLp (and Linux's tcp_lp.c, which it follows) moves the result. With no rule it
// is TcpLp: the one-way delay is the receiver's timestamp less the echoed one (ms, TCP
// timestamps), smoothed with gain 1/8; early congestion when the smoothed delay is above
// owd_min + 15% (owd_max - owd_min) (owd_max skips the largest sample once, the "reserve");
// then the range restarts at [sd, 2 sd], the window halves, or drops to one segment inside the
// inference time-out (3 round trips from the last reaction); no congestion-avoidance growth
// inside it. sim::tcp's rules (crates/sim/src/tcp/sender.rs, `on_delay_sample`, `grow`):
//   ssthresh  a reaction sets ssthresh to the new window (at least 2 segments), so the window
//             grows by congestion avoidance afterwards; TcpLp leaves ssthresh, and before a
//             loss (ssthresh unbounded) the window slow-starts back after each halving.
//   window    at most one reaction per window of data (none until the data outstanding at the
//             last one is acknowledged); TcpLp reacts at every ACK above the threshold.
//   latest    inside the inference time-out, one segment only while the latest sample itself is
//             above the threshold (else no reaction); TcpLp reacts to the smoothed delay alone.
//   recovery  no reaction during a loss recovery (fast recovery or after a time-out).
//   no-ss     no growth at all inside the inference time-out (TcpLp blocks congestion
//             avoidance only: slow start continues).
// and the ways sim::tcp's estimator (crates/sim/src/tcp/lbe.rs, `TcpLp::on_delay`; the delay
// the receiver echoes, crates/sim/src/world) departs from ns-3's:
//   exact     the one-way delay of the same echoed segment, from the exact times its
//             timestamps stand for (the side channel above), and the smoothed delay, range and
//             threshold in real numbers; TcpLp's timestamps are whole milliseconds and it
//             compares the smoothed delay truncated to a millisecond with
//             owd_min + floor(15 (owd_max - owd_min) / 100).
//   trigger   the delay of the data segment that triggered the ACK (ours: every arrival,
//             in order or not); TCP timestamps echo the last segment that arrived in order,
//             so after a loss every duplicate ACK reads the delay since the segment before the
//             hole was sent. Whole milliseconds unless with `exact`.
//   plain-max owd_max is the largest sample; TcpLp's skips the largest one once (reserve).
//   srtt      the inference time-out is 3 smoothed RTTs, fixed at the reaction; TcpLp's is 3
//             times the time since the echoed segment was sent, re-read at every ACK.
class TcpLpRules : public TcpNewReno
{
  public:
    static bool s_ssthresh, s_window, s_latest, s_recovery, s_no_ss;
    static bool s_exact, s_trigger, s_plain_max, s_srtt;
    // The side channel against the TCP timestamps (each ACK sampled): ACKs whose timestamp is
    // not the millisecond of the tagged send time, echoes (without `trigger`) whose echoed
    // timestamp is not the millisecond of the segment this estimator takes as echoed.
    static uint64_t s_acks, s_ts_mismatch, s_echo_mismatch;
    // Reactions to an early congestion indication (all senders); --lpTrace prints each one
    // (and with `exact` each one-way delay sample).
    static uint64_t s_reactions;
    static bool s_trace;

    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TcpLpRules")
                                .SetParent<TcpNewReno>()
                                .AddConstructor<TcpLpRules>()
                                .SetGroupName("Internet");
        return tid;
    }

    TcpLpRules() = default;
    TcpLpRules(const TcpLpRules&) = default;

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<TcpLpRules>(this);
    }

    std::string GetName() const override
    {
        return "TcpLpRules";
    }

    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t, const Time& rtt) override
    {
        if (g_lp_side)
        {
            Echo(tcb);
        }
        bool above, latest_above;
        if (s_exact)
        {
            if (!rtt.IsZero())
            {
                SampleExact();
            }
            double threshold = m_minX + 0.15 * (m_maxX - m_minX);
            above = m_sdX > threshold;
            latest_above = m_latestX > threshold;
        }
        else
        {
            if (!rtt.IsZero())
            {
                Sample(tcb);
            }
            uint32_t threshold = m_owdMin + 15 * (m_owdMax - m_owdMin) / 100;
            above = m_sOwd8 >> 3 > threshold;
            latest_above = m_latest > threshold;
        }
        Time now = Simulator::Now();
        if (s_srtt)
        {
            m_inferring = !m_lastReaction.IsZero() && now < m_inferenceEnd;
        }
        else
        {
            // The echoed segment's send time: TCP's timestamp (ms), or the side channel's.
            Time echoed = MilliSeconds(tcb->m_rcvTimestampEchoReply);
            if (s_trigger || s_exact)
            {
                echoed = s_trigger ? g_lp_ack.trigger : m_echoSent;
                if (!s_exact)
                {
                    echoed = MilliSeconds(echoed.GetMilliSeconds());
                }
            }
            if (s_exact ? now > echoed : now.GetMilliSeconds() > echoed.GetMilliSeconds())
            {
                m_inference = 3 * (now - echoed);
            }
            m_inferring = !m_lastReaction.IsZero() && now - m_lastReaction < m_inference;
        }
        if (!above)
        {
            return;
        }
        if (s_recovery && (tcb->m_congState == TcpSocketState::CA_RECOVERY ||
                           tcb->m_congState == TcpSocketState::CA_LOSS))
        {
            return;
        }
        if (s_window && tcb->m_lastAckedSeq < m_recover)
        {
            return;
        }
        if (s_latest && m_inferring && !latest_above)
        {
            return;
        }
        if (s_exact)
        {
            m_minX = m_sdX;
            m_maxX = 2 * m_sdX;
            m_maxRsvX = 2 * m_sdX;
        }
        else
        {
            m_owdMin = m_sOwd8 >> 3;
            m_owdMax = m_sOwd8 >> 2;
            m_owdMaxReserve = m_sOwd8 >> 2;
        }
        uint32_t cwnd = m_inferring ? tcb->m_segmentSize
                                    : std::max(tcb->m_cWnd.Get() / 2, tcb->m_segmentSize);
        s_reactions++;
        if (s_trace)
        {
            std::cerr << "lp " << now.GetSeconds() << " cwnd " << tcb->m_cWnd.Get() / tcb->m_segmentSize
                      << " -> " << cwnd / tcb->m_segmentSize << (m_inferring ? " inferring" : "")
                      << " sd " << (s_exact ? m_sdX * 1e3 : (m_sOwd8 >> 3)) << " ms\n";
        }
        tcb->m_cWnd = cwnd;
        if (s_ssthresh)
        {
            tcb->m_ssThresh = std::max(cwnd, 2 * tcb->m_segmentSize);
        }
        m_recover = tcb->m_highTxMark;
        m_lastReaction = now;
        m_inferenceEnd = now + 3 * tcb->m_srtt.Get();
    }

    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        if (s_no_ss && m_inferring)
        {
            return;
        }
        TcpNewReno::IncreaseWindow(tcb, segmentsAcked);
    }

  protected:
    void CongestionAvoidance(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        if (!m_inferring)
        {
            TcpNewReno::CongestionAvoidance(tcb, segmentsAcked);
        }
    }

  private:
    void Sample(Ptr<TcpSocketState> tcb)
    {
        int64_t d = int64_t(tcb->m_rcvTimestampValue) - int64_t(tcb->m_rcvTimestampEchoReply);
        if (s_trigger)
        {
            if (!g_lp_ack.valid)
            {
                return;
            }
            d = g_lp_ack.sent.GetMilliSeconds() - g_lp_ack.trigger.GetMilliSeconds();
        }
        uint32_t owd = uint32_t(d < 0 ? -d : d);
        if (owd == 0)
        {
            return;
        }
        m_latest = owd;
        m_owdMin = std::min(m_owdMin, owd);
        if (owd > m_owdMax)
        {
            if (owd > m_owdMaxReserve && !s_plain_max)
            {
                m_owdMax = m_owdMaxReserve == 0 ? owd : m_owdMaxReserve;
                m_owdMaxReserve = owd;
            }
            else
            {
                m_owdMax = owd;
            }
        }
        m_sOwd8 = m_sOwd8 == 0 ? owd << 3 : m_sOwd8 + owd - (m_sOwd8 >> 3);
    }

    // The exact send time of the segment TCP timestamps echo (the last to arrive in order:
    // the one that started at the previous cumulative ACK), and the side channel's checks.
    void Echo(Ptr<TcpSocketState> tcb)
    {
        if (!g_lp_ack.valid)
        {
            return;
        }
        auto& tx = g_lp_tx[g_lp_ack.pair];
        if (!m_prevInit)
        {
            if (tx.empty())
            {
                return;
            }
            m_prevAck = SequenceNumber32(tx.begin()->first);
            m_prevInit = true;
        }
        if (tcb->m_lastAckedSeq > m_prevAck)
        {
            auto it = tx.find(m_prevAck.GetValue());
            if (it != tx.end())
            {
                m_echoSent = it->second;
            }
            m_prevAck = tcb->m_lastAckedSeq;
            tx.erase(tx.begin(), tx.lower_bound(m_prevAck.GetValue()));
        }
        s_acks++;
        if (!g_bg_timestamps)
        {
            return;
        }
        if (uint32_t(g_lp_ack.sent.GetMilliSeconds()) != tcb->m_rcvTimestampValue)
        {
            s_ts_mismatch++;
        }
        if (uint32_t(m_echoSent.GetMilliSeconds()) != tcb->m_rcvTimestampEchoReply)
        {
            s_echo_mismatch++;
        }
    }

    void SampleExact()
    {
        if (!g_lp_ack.valid)
        {
            return;
        }
        double owd = (g_lp_ack.sent - (s_trigger ? g_lp_ack.trigger : m_echoSent)).GetSeconds();
        if (owd <= 0)
        {
            return;
        }
        m_latestX = owd;
        m_minX = std::min(m_minX, owd);
        if (owd > m_maxX)
        {
            if (owd > m_maxRsvX && !s_plain_max)
            {
                m_maxX = m_maxRsvX == 0 ? owd : m_maxRsvX;
                m_maxRsvX = owd;
            }
            else
            {
                m_maxX = owd;
            }
        }
        m_sdX = m_sdX == 0 ? owd : m_sdX + (owd - m_sdX) / 8;
        if (s_trace)
        {
            std::cerr << "owd " << Simulator::Now().GetSeconds() << " " << g_lp_ack.pair << " "
                      << owd * 1e3 << " sd " << m_sdX * 1e3 << " ms\n";
        }
    }

    uint32_t m_sOwd8 = 0; // smoothed one-way delay, ms, times 8
    uint32_t m_owdMin = ~0U;
    uint32_t m_owdMax = 0;
    uint32_t m_owdMaxReserve = 0;
    uint32_t m_latest = 0;
    // `exact`: the same in seconds.
    double m_sdX = 0;
    double m_minX = 1e9;
    double m_maxX = 0;
    double m_maxRsvX = 0;
    double m_latestX = 0;
    // The side channel's echoed segment.
    bool m_prevInit = false;
    SequenceNumber32 m_prevAck{0};
    Time m_echoSent;
    bool m_inferring = false;
    Time m_lastReaction;
    Time m_inference;
    Time m_inferenceEnd; // `srtt`
    SequenceNumber32 m_recover{0};
};

bool TcpLpRules::s_ssthresh = false;
bool TcpLpRules::s_window = false;
bool TcpLpRules::s_latest = false;
bool TcpLpRules::s_recovery = false;
bool TcpLpRules::s_no_ss = false;
bool TcpLpRules::s_exact = false;
bool TcpLpRules::s_trigger = false;
bool TcpLpRules::s_plain_max = false;
bool TcpLpRules::s_srtt = false;
uint64_t TcpLpRules::s_acks = 0;
uint64_t TcpLpRules::s_ts_mismatch = 0;
uint64_t TcpLpRules::s_echo_mismatch = 0;
uint64_t TcpLpRules::s_reactions = 0;
bool TcpLpRules::s_trace = false;
NS_OBJECT_ENSURE_REGISTERED(TcpLpRules);

// TcpLedbat whose window may reach RFC 6817's max_allowed_cwnd = flightsize + ALLOWED_INCREASE
// MSS (ALLOWED_INCREASE = 1), as sim::tcp's LEDBAT (`Ledbat::congestion_avoidance`).
// TcpLedbat::CongestionAvoidance caps the window at m_highTxMark - m_lastAckedSeq +
// segmentsAcked MSS, and TcpSocketBase::ProcessAck has already moved m_lastAckedSeq to this
// ACK: the cap is the flight before the ACK, which a window-limited sender never exceeds, so
// in congestion avoidance ns-3's window never grows (it shrinks above the target and stays put
// below it; slow start after a time-out is its only way up). This variant moves
// m_lastAckedSeq back by one segment for the call.
class TcpLedbatAllowedIncrease : public TcpLedbat
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TcpLedbatAllowedIncrease")
                                .SetParent<TcpLedbat>()
                                .AddConstructor<TcpLedbatAllowedIncrease>()
                                .SetGroupName("Internet");
        return tid;
    }

    TcpLedbatAllowedIncrease() = default;
    TcpLedbatAllowedIncrease(const TcpLedbatAllowedIncrease&) = default;

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<TcpLedbatAllowedIncrease>(this);
    }

    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        SequenceNumber32 acked = tcb->m_lastAckedSeq;
        tcb->m_lastAckedSeq = acked - tcb->m_segmentSize;
        TcpLedbat::IncreaseWindow(tcb, segmentsAcked);
        tcb->m_lastAckedSeq = acked;
    }
};

NS_OBJECT_ENSURE_REGISTERED(TcpLedbatAllowedIncrease);

} // namespace ns3

int
main(int argc, char* argv[])
{
    std::string flows_path, out_path;
    bool sack = false;
    double drain = 60;
    uint32_t max_window = 30;
    uint32_t initial_window = 1;
    double min_rto_ms = 200;
    // RFC 6298 §2.1's initial RTO, which crates/sim uses for SYNs too; ns-3's default
    // ConnTimeout is RFC 1122's 3 s.
    double syn_rto_ms = 1000;
    std::string setting = "S1";
    uint32_t pairs = 10;
    std::string bg_cc = "ledbat";
    std::string lp_rules;
    double ledbat_target_ms = 25;
    double bg_window_s = -1;
    double bottleneck_delay_ms = -1;
    double stop_s = -1;
    double msl_s = 120; // ns-3's default
    CommandLine cmd;
    cmd.AddValue("setting", "paper 003's setting: S1 (= S1p) or S2", setting);
    cmd.AddValue("bottleneckDelayMs", "bottleneck delay, ms (default: the setting's)",
                 bottleneck_delay_ms);
    cmd.AddValue("closeReceivers", "receivers close their socket after the last byte",
                 g_close_receivers);
    cmd.AddValue("msl", "TCP maximum segment lifetime (TIME_WAIT lasts 2 MSL), s", msl_s);
    cmd.AddValue("traces", "connect the counting and debugging trace sinks", g_traces);
    cmd.AddValue("stop", "stop at this time, s (default: last arrival + drain)", stop_s);
    cmd.AddValue("flows", "flow list CSV (arrival_seconds,size_bytes,source)", flows_path);
    cmd.AddValue("out", "per-flow output CSV", out_path);
    cmd.AddValue("sack", "SACK on", sack);
    cmd.AddValue("drain", "seconds simulated after the last arrival", drain);
    cmd.AddValue("maxWindow", "maximum window, segments", max_window);
    cmd.AddValue("initialWindow", "initial window, segments", initial_window);
    cmd.AddValue("minRtoMs", "minimum RTO, ms", min_rto_ms);
    cmd.AddValue("synRtoMs", "SYN retransmission timeout (ns-3 ConnTimeout), ms", syn_rto_ms);
    cmd.AddValue("pairs", "sender-receiver pairs", pairs);
    cmd.AddValue("bgFrom", "flows of this source and up are background transfers", g_bg_from);
    cmd.AddValue("bgCc", "background congestion control: ledbat, tcp-lp, newreno, or the evidence "
                 "variants ledbat-ss-half-target, tcp-lp-ssthresh, ledbat-allowed-increase, tcp-lp-rules", bg_cc);
    cmd.AddValue("lpRules", "tcp-lp-rules: sim::tcp's rules to apply, a comma-separated subset of "
                 "ssthresh, window, latest, recovery, no-ss and of its estimator's exact, trigger, "
                 "plain-max, srtt", lp_rules);
    cmd.AddValue("bgTimestamps", "TCP timestamps on the background's connections (0: only for "
                 "tcp-lp-rules with exact and trigger)", g_bg_timestamps);
    cmd.AddValue("lpTrace", "tcp-lp-rules: print each reaction and (exact) delay sample (stderr)",
                 TcpLpRules::s_trace);
    cmd.AddValue("ledbatTargetMs", "TcpLedbat's TargetDelay, ms", ledbat_target_ms);
    cmd.AddValue("bgWindow", "record background bytes and mean queue at this time, s",
                 bg_window_s);
    cmd.AddValue("debugFlow", "print the segments of this flow (stderr)", g_debug_flow);
    cmd.Parse(argc, argv);

    std::ifstream in(flows_path);
    if (!in)
    {
        std::cerr << "cannot read " << flows_path << "\n";
        return 1;
    }
    std::string line;
    while (std::getline(in, line))
    {
        if (line.empty() || line[0] == '#' || !(isdigit(line[0]) || line[0] == '.'))
        {
            continue;
        }
        std::stringstream ss(line);
        std::string a, b, c;
        std::getline(ss, a, ',');
        std::getline(ss, b, ',');
        std::getline(ss, c, ',');
        g_flows.push_back(Flow{std::stod(a), std::stoull(b), c.empty() ? 0u : (uint32_t)std::stoul(c)});
    }

    for (const Flow& f : g_flows)
    {
        if (f.source >= pairs)
        {
            std::cerr << "flow at " << f.arrival << " s uses source " << f.source << " but there are "
                      << pairs << " pairs\n";
            return 1;
        }
    }
    TypeId bg_type;
    if (bg_cc == "ledbat")
    {
        bg_type = TcpLedbat::GetTypeId();
    }
    else if (bg_cc == "tcp-lp")
    {
        bg_type = TcpLp::GetTypeId();
    }
    else if (bg_cc == "ledbat-ss-half-target")
    {
        bg_type = TcpLedbatSsHalfTarget::GetTypeId();
        TcpLedbatSsHalfTarget::s_target_ms = ledbat_target_ms;
    }
    else if (bg_cc == "tcp-lp-ssthresh")
    {
        bg_type = TcpLpSsthresh::GetTypeId();
    }
    else if (bg_cc == "tcp-lp-rules")
    {
        bg_type = TcpLpRules::GetTypeId();
        std::stringstream rules(lp_rules);
        std::string rule;
        while (std::getline(rules, rule, ','))
        {
            bool* flag = rule == "ssthresh"   ? &TcpLpRules::s_ssthresh
                         : rule == "window"   ? &TcpLpRules::s_window
                         : rule == "latest"   ? &TcpLpRules::s_latest
                         : rule == "recovery" ? &TcpLpRules::s_recovery
                         : rule == "no-ss"    ? &TcpLpRules::s_no_ss
                         : rule == "exact"    ? &TcpLpRules::s_exact
                         : rule == "trigger"  ? &TcpLpRules::s_trigger
                         : rule == "plain-max" ? &TcpLpRules::s_plain_max
                         : rule == "srtt"     ? &TcpLpRules::s_srtt
                                              : nullptr;
            if (!flag)
            {
                std::cerr << "unknown lpRules rule " << rule
                          << ": ssthresh, window, latest, recovery, no-ss, exact, trigger, "
                             "plain-max or srtt\n";
                return 1;
            }
            *flag = true;
        }
        g_lp_side = TcpLpRules::s_exact || TcpLpRules::s_trigger;
        if (!g_bg_timestamps && !(TcpLpRules::s_exact && TcpLpRules::s_trigger))
        {
            std::cerr << "--bgTimestamps=0 needs lpRules exact and trigger\n";
            return 1;
        }
    }
    else if (bg_cc == "ledbat-allowed-increase")
    {
        bg_type = TcpLedbatAllowedIncrease::GetTypeId();
    }
    else if (bg_cc == "newreno")
    {
        bg_type = TcpNewReno::GetTypeId();
    }
    else
    {
        std::cerr << "unknown bgCc " << bg_cc << ": ledbat, tcp-lp or newreno\n";
        return 1;
    }
    if (!g_bg_timestamps && bg_cc != "tcp-lp-rules")
    {
        std::cerr << "--bgTimestamps=0 needs --bgCc=tcp-lp-rules\n";
        return 1;
    }
    std::string access_rate;
    double access_delay_ms, receiver_delay_ms;
    if (setting == "S1" || setting == "S1p")
    {
        access_rate = "10Mbps";
        access_delay_ms = 1;
        receiver_delay_ms = 1;
        if (bottleneck_delay_ms < 0)
        {
            bottleneck_delay_ms = 4;
        }
    }
    else if (setting == "S2")
    {
        access_rate = "2Mbps";
        access_delay_ms = 10;
        receiver_delay_ms = 10;
        if (bottleneck_delay_ms < 0)
        {
            bottleneck_delay_ms = 40;
        }
    }
    else
    {
        std::cerr << "unknown setting " << setting << ": S1, S1p or S2\n";
        return 1;
    }
    auto ms = [](double x) { return StringValue(std::to_string(x) + "ms"); };

    const uint32_t mss = 1460;
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initial_window));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(max_window * mss));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 20));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(min_rto_ms)));
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(MilliSeconds(syn_rto_ms)));
    Config::SetDefault("ns3::TcpSocketBase::MaxSegLifetime", DoubleValue(msl_s));
    Config::SetDefault("ns3::TcpLedbat::TargetDelay", TimeValue(MilliSeconds(ledbat_target_ms)));

    NodeContainer routers;
    routers.Create(2);
    g_senders.Create(pairs);
    g_receivers.Create(pairs);
    InternetStackHelper stack;
    stack.InstallAll();
    for (uint32_t i = 0; g_bg_from >= 0 && i < pairs; i++)
    {
        if ((int64_t)i >= g_bg_from)
        {
            g_senders.Get(i)->GetObject<TcpL4Protocol>()->SetAttribute("SocketType",
                                                                       TypeIdValue(bg_type));
        }
    }

    PointToPointHelper link;
    link.SetDeviceAttribute("DataRate", StringValue(access_rate));
    link.SetChannelAttribute("Delay", ms(access_delay_ms));
    link.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("10000p"));
    PointToPointHelper rlink = link;
    rlink.SetChannelAttribute("Delay", ms(receiver_delay_ms));
    PointToPointHelper bottleneck = link;
    bottleneck.SetDeviceAttribute("DataRate", StringValue("10Mbps"));
    bottleneck.SetChannelAttribute("Delay", ms(bottleneck_delay_ms));
    bottleneck.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("100p"));

    TrafficControlHelper tch;
    Ipv4AddressHelper ip;
    auto wire = [&](PointToPointHelper& h, Ptr<Node> a, Ptr<Node> b, const char* net) {
        NetDeviceContainer d = h.Install(a, b);
        ip.SetBase(net, "255.255.255.0");
        Ipv4InterfaceContainer ifs = ip.Assign(d); // installs the default qdisc...
        tch.Uninstall(d);                          // ...which we remove
        return std::make_pair(d, ifs);
    };
    auto core = wire(bottleneck, routers.Get(0), routers.Get(1), "10.0.0.0");
    for (uint32_t i = 0; i < pairs; i++)
    {
        std::string sn = "10.1." + std::to_string(i) + ".0";
        std::string rn = "10.2." + std::to_string(i) + ".0";
        auto s = wire(link, g_senders.Get(i), routers.Get(0), sn.c_str());
        auto r = wire(rlink, routers.Get(1), g_receivers.Get(i), rn.c_str());
        g_rx_addr.push_back(r.second.GetAddress(1));
        if (g_lp_side && g_bg_from >= 0 && (int64_t)i >= g_bg_from)
        {
            r.first.Get(1)->TraceConnectWithoutContext("MacRx", MakeBoundCallback(&LpReceiverRx, i));
            r.first.Get(1)->TraceConnectWithoutContext("MacTx", MakeBoundCallback(&LpReceiverTx, i));
            s.first.Get(0)->TraceConnectWithoutContext("MacRx", MakeBoundCallback(&LpSenderRx, i));
        }
        if (!g_traces)
        {
            continue;
        }
        r.first.Get(1)->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&Sniff, std::string("RX-tx"), i));
        r.first.Get(1)->TraceConnectWithoutContext("MacRx", MakeBoundCallback(&Sniff, std::string("RX-rx"), i));
        r.first.Get(1)->TraceConnectWithoutContext("MacRx", MakeBoundCallback(&ReceiverMacRx, i));
        s.first.Get(0)->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&SenderTx));
        s.first.Get(0)->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&Sniff, std::string("tx"), i));
        s.first.Get(0)->TraceConnectWithoutContext("MacRx", MakeBoundCallback(&Sniff, std::string("rx"), i));
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    Ptr<PointToPointNetDevice> bdev = DynamicCast<PointToPointNetDevice>(core.first.Get(0));
    Ptr<Queue<Packet>> q = bdev->GetQueue();
    if (g_traces)
    {
        q->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&QueueLen));
        q->TraceConnectWithoutContext("Enqueue", MakeCallback(&Enq));
        q->TraceConnectWithoutContext("Drop", MakeCallback(&Drop));

        Config::ConnectWithoutContext(
            "/NodeList/*/DeviceList/*/$ns3::PointToPointNetDevice/TxQueue/Drop",
            MakeCallback(&AnyQueueDrop));
        Config::ConnectWithoutContext("/NodeList/*/$ns3::Ipv4L3Protocol/Drop", MakeCallback(&IpDrop));
        routers.Get(0)->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
            "TcDrop",
            MakeCallback(&TcDrop));
        Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::PointToPointNetDevice/PhyRxDrop",
                                      MakeCallback(&PhyRxDrop));
    }
    for (uint32_t i = 0; i < pairs; i++)
    {
        Ptr<Socket> l = Socket::CreateSocket(g_receivers.Get(i), TcpSocketFactory::GetTypeId());
        if (g_bg_from >= 0 && (int64_t)i >= g_bg_from)
        {
            l->SetAttribute("Timestamp", BooleanValue(g_bg_timestamps));
        }
        l->Bind(InetSocketAddress(Ipv4Address::GetAny(), kPort));
        l->Listen();
        l->SetAcceptCallback(MakeCallback(&AcceptAll), MakeBoundCallback(&Accept, i));
    }
    double last = 0;
    for (size_t i = 0; i < g_flows.size(); i++)
    {
        Simulator::Schedule(Seconds(g_flows[i].arrival), &StartFlow, i);
        last = std::max(last, g_flows[i].arrival);
    }
    double end = stop_s > 0 ? stop_s : last + drain;
    if (bg_window_s > 0)
    {
        Simulator::Schedule(Seconds(bg_window_s), &BackgroundWindowEnd);
    }
    Simulator::Stop(Seconds(end));
    auto wall0 = std::chrono::steady_clock::now();
    Simulator::Run();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    QueueLen(0, g_q_len);
    // Packets the bottleneck forwarded (ns-3's queue counters: accepted, less those still
    // queued; the device queue's own drop count is 0, see TcDrop), each direction.
    Ptr<Queue<Packet>> rq =
        DynamicCast<PointToPointNetDevice>(core.first.Get(1))->GetQueue();
    uint64_t fwd = q->GetTotalReceivedPackets() - q->GetTotalDroppedPackets() - q->GetNPackets();
    uint64_t rev =
        rq->GetTotalReceivedPackets() - rq->GetTotalDroppedPackets() - rq->GetNPackets();
    std::cout << "setting " << setting << ": simulated " << end << " s in " << wall
              << " s wall; bottleneck packets forwarded " << fwd << " (data), " << fwd + rev
              << " both directions; per wall second " << fwd / wall << " forward, "
              << (fwd + rev) / wall << " both\n";
    std::cerr << "bottleneck queue " << q->GetMaxSize() << ": received "
              << q->GetTotalReceivedPackets() << ", dropped " << q->GetTotalDroppedPackets()
              << "\n";

    if (bg_cc == "tcp-lp-rules")
    {
        std::cerr << "tcp-lp-rules: " << TcpLpRules::s_reactions << " reactions\n";
    }
    if (g_lp_side)
    {
        std::cerr << "tcp-lp-rules side channel: " << TcpLpRules::s_acks << " ACKs, "
                  << TcpLpRules::s_ts_mismatch << " whose timestamp is not the tagged send time's ms, "
                  << TcpLpRules::s_echo_mismatch
                  << " whose echo is not the ms of the segment last received in order\n";
    }
    std::ofstream out(out_path);
    // timeouts: entries into the loss state (CongState trace; a back-off while already in it
    // is not an entry, and SYN timeouts are not counted).
    out << "flow,arrival_s,size_bytes,source,transfer_s,syns,data_packets,fast_recoveries,"
           "timeouts\n";
    uint64_t unique = 0;
    for (size_t i = 0; i < g_flows.size(); i++)
    {
        const Flow& f = g_flows[i];
        out << i << "," << f.arrival << "," << f.size << "," << f.source << ",";
        if (f.delivered >= 0)
        {
            out << (f.delivered - f.arrival);
        }
        out << "," << f.syns << "," << f.data_packets << "," << f.recoveries << ","
            << f.loss_entries << "\n";
        unique += (f.size + mss - 1) / mss;
    }
    std::ofstream st(out_path + ".stats");
    st << "enqueued,dropped,data_packets_sent,unique_segments,mean_queue_packets,horizon_s,"
          "all_queue_drops,ip_drops,phy_rx_drops,fast_recoveries,timeouts,tc_drops,"
          "forwarded,forwarded_both,wall_s,sent_below_una,duplicate_arrivals,control_drops,"
          "bg_bytes,bg_window_s,window_mean_queue_packets\n"
       << g_enqueued << "," << g_dropped + g_tc_drops << "," << g_data_sent << "," << unique << ","
       << g_q_area / end << "," << end << "," << g_other_queue_drops << "," << g_ip_drops
       << "," << g_phy_rx_drops << "," << g_recoveries << "," << g_rtos << "," << g_tc_drops << "," << fwd << ","
       << fwd + rev << "," << wall << "," << g_below_una << "," << g_dup_arrivals << "," << g_control_drops << ","
       << g_bg_bytes << "," << bg_window_s << ","
       << (bg_window_s > 0 ? g_window_q_area / bg_window_s : 0.0) << "\n";
    Simulator::Destroy();
    return 0;
}
