// Sherman §5.5, Fig. 14: internal metrics, write-intensive, Zipf 0.99:
// lookup retries (a), round trips per write (b), bytes per write (c).
#include "common.h"

namespace lw {

ReproFigure sherman_fig14() {
  ReproFigure f;
  f.name = "sherman-fig14";
  f.title = "Sherman Fig. 14: internal metrics, write-intensive, Zipf 0.99 (2^20 keys, 8 MN + 8 CN x 22 threads, cx5-100g)";
  f.x_label = "(one run per index)";
  f.chart = ReproChart::kBars;  // one x: a breakdown
  f.log_x = false;
  std::vector<size_t> runs;
  for (const char* index : {"sherman", "fg+"}) {
    ReproPoint p;
    p.panel = "throughput";
    p.series = index;
    p.x = 0.99;
    p.cluster = sherman_repro::sherman_cluster();
    p.sherman = sherman_repro::tree_options(index, TreeMix::kWriteIntensive, 0.99, &p.cluster);
    // Fig. 10's write-intensive runs, whose windows reach the steady state
    // (sherman_repro::steady_state); equal options share one run.
    sherman_repro::steady_state(&*p.sherman, &p.cluster);
    runs.push_back(f.points.size());
    f.points.push_back(p);
  }
  struct M {
    const char* panel;
    const char* suffix;
    const char* metric;
  };
  const M metrics[] = {
      {"lookups without retry (%)", "lookups without retry", "counter:btree.lookups_without_retry_pct"},
      {"writes by round trips (%)", "2 RT", "counter:btree.rt_share.2"},
      {"writes by round trips (%)", "3 RT", "counter:btree.rt_share.3"},
      {"writes by round trips (%)", "4 RT", "counter:btree.rt_share.4"},
      {"p99 round trips per write", "p99 RT", "counter:btree.write_round_trips_p99"},
      {"bytes written per write without split", "bytes", "counter:btree.write_bytes_no_split"},
      {"writes that split (%)", "split", "counter:btree.split_write_pct"},
  };
  for (const M& m : metrics) {
    f.panel_y_labels[m.panel] = m.panel;
    for (size_t i = 0; i < runs.size(); ++i)
      f.points.push_back(sherman_repro::metric_of(f, runs[i], m.panel, f.points[runs[i]].series + " " + m.suffix,
                                                  0.99, m.metric));
  }
  const std::string s = "Sherman §5.5";
  auto v = [&](std::string series, double value, std::string src, double tol) {
    PaperValue p{std::move(series), 0.99, value, s + src, false, tol};
    f.paper.push_back(p);
  };
  v("sherman lookups without retry", 99.98, ".1, Fig. 14(a): 99.98% of Sherman's lookups need no retry", 0.01);
  v("fg+ lookups without retry", 99.98, ".1, Fig. 14(a): 99.98% of FG+'s lookups need no retry", 0.01);
  v("fg+ 4 RT", 94, ".2, Fig. 14(b): 94% of FG+'s writes need 4 round trips", 0.1);
  v("sherman 3 RT", 93.6, ".2, Fig. 14(b): 93.6% of Sherman's writes need 3 round trips", 0.1);
  v("sherman 2 RT", 3.6, ".2, Fig. 14(b): 3.6% of Sherman's writes need 2 (handover)", 0.5);
  v("fg+ p99 RT", 453, ".2, Fig. 14(b): FG+'s p99 round trips per write is 453", 0.5);
  v("sherman p99 RT", 11, ".2, Fig. 14(b): Sherman's p99 round trips per write is 11", 0.5);
  v("sherman bytes", 17, ".3, Fig. 14(c): Sherman writes back 17 bytes when it does not split", 0.1);
  v("sherman split", 0.4, ".3, Fig. 14(c): about 0.4% of writes split (> 1 KB)", 0.5);
  f.notes = sherman_repro::scale_note(/*steady=*/true) +
            " Round trips are the operation's awaited submissions (lock CAS, READ, the combined write-back + "
            "release list; retries count one each). Bytes written are every byte the operation sent to memory "
            "nodes: besides the write-back they include the lock's 8-byte CAS per attempt and its release (2 "
            "bytes on-chip, 8 in host memory), so Sherman's 17-byte entry write shows as about 17 + 8 + 2; a "
            "write whose bytes reach the node size counts as splitting.";
  return f;
}

}  // namespace lw
