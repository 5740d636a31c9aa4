#include "calendar.h"

#include <gtest/gtest.h>

namespace lw::sim {
namespace {

TEST(Calendar, BooksBackToBackWhenBusy) {
  Calendar c;
  EXPECT_EQ(c.book(100, 10, 0), 100u);
  EXPECT_EQ(c.book(100, 10, 0), 110u);
  EXPECT_EQ(c.book(105, 10, 0), 120u);
  EXPECT_EQ(c.intervals(), 1u);  // touching bookings merge
}

TEST(Calendar, EarlyRequestUsesAGapBeforeALaterBooking) {
  // A booking made first for a later time must not delay an earlier request.
  Calendar c;
  EXPECT_EQ(c.book(1000, 10, 0), 1000u);
  EXPECT_EQ(c.book(100, 10, 0), 100u);
  EXPECT_EQ(c.book(995, 10, 0), 1010u);  // a 5 ns gap is too small
  EXPECT_EQ(c.intervals(), 2u);
}

TEST(Calendar, ReleasedTimeCanBeBookedAgain) {
  Calendar c;
  EXPECT_EQ(c.book(0, 100, 0), 0u);
  c.release(40, 100);
  EXPECT_EQ(c.book(50, 20, 0), 50u);
  EXPECT_EQ(c.book(0, 10, 0), 40u);  // the first gap that fits is [40, 50)
}

TEST(Calendar, ForgetsThePast) {
  Calendar c;
  for (Nanos t = 0; t < 1000; t += 20) c.book(t, 10, t);
  EXPECT_LE(c.intervals(), 2u);
}

}  // namespace
}  // namespace lw::sim
