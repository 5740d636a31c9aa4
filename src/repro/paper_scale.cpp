#include "repro/paper_scale.h"

#include <set>

namespace lw {

namespace {
bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }
}  // namespace

ReproFigure at_paper_scale(const ReproFigure& f) {
  ReproFigure out = f;
  out.scale = ReproScale::kPaper;
  std::set<std::string> seen;
  std::string changed;
  for (ReproPoint& p : out.points) {
    for (const std::string& note : {smart_repro::to_paper_scale(&p), sherman_repro::to_paper_scale(&p),
                                    alock_repro::to_paper_scale(&p)}) {
      if (note.empty() || !seen.insert(note).second) continue;
      changed += (changed.empty() ? "" : "; ") + note;
    }
  }
  std::string kept;
  if (starts_with(f.name, "drtmh-")) kept = drtmh::paper_scale_unchanged();
  else if (starts_with(f.name, "jasny-")) kept = jasny_repro::paper_scale_unchanged();
  else if (starts_with(f.name, "smart-")) kept = smart_repro::paper_scale_unchanged(f.name);
  std::string note = "At --scale paper: ";
  if (!changed.empty()) note += changed + ".";
  if (!kept.empty()) note += (changed.empty() ? "" : " Unchanged: ") + kept + ".";
  if (changed.empty() && kept.empty()) note += "the same set-up as the default scale.";
  out.notes += (out.notes.empty() ? "" : " ") + note;
  return out;
}

}  // namespace lw
