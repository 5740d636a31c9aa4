// `latchwork repro --scale paper`: every figure with the papers' key counts,
// policy clocks and run lengths where this machine (24 GB, 30 minutes for
// `repro all` on 2 cores) allows. The default figures are built scaled down
// (each figure's notes say how); at_paper_scale() rewrites a default
// figure's points, one rule per paper, each in repro/<paper>/paper_scale.cpp,
// and appends to the notes what changed and what stayed scaled down, with
// the reason. Series, x values and paper values are the same at both
// scales, so `latchwork repro diff` sets the two side by side.
#pragma once

#include <string>

#include "repro/repro.h"

namespace lw {

ReproFigure at_paper_scale(const ReproFigure& f);

// The rules, one per paper. Each rewrites a point of its paper's kind in
// place and returns the note of what it did ("" if the point is not its
// kind or already at the paper's scale).
namespace smart_repro {
std::string to_paper_scale(ReproPoint* p);
std::string paper_scale_unchanged(const std::string& figure);  // why a SMART figure keeps its scale, or ""
}  // namespace smart_repro
namespace sherman_repro {
std::string to_paper_scale(ReproPoint* p);
}  // namespace sherman_repro
namespace alock_repro {
std::string to_paper_scale(ReproPoint* p);
}  // namespace alock_repro
namespace drtmh {
std::string paper_scale_unchanged();
}  // namespace drtmh
namespace jasny_repro {
std::string paper_scale_unchanged();
}  // namespace jasny_repro

}  // namespace lw
