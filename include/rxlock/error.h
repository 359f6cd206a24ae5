/* SPDX-License-Identifier: ISC */
/* include/rxlock/error.h — the library's one error space.
 *
 * Every rxlock function returns 0 on success or a negative code from one of
 * four non-overlapping ranges, one per layer:
 *
 *   RX_E*      -1 ..  -99   RandomX engine          (include/rxlock/rx.h)
 *   TL_E*    -100 .. -199   time-lock layer         (include/rxlock/rxlock.h)
 *   TL_AGE_E* -200 .. -299  age v1 format           (include/rxlock/age.h)
 *   PQ_E*     -300 .. -399  post-quantum primitives (include/rxlock/pq.h)
 *
 * A code keeps its meaning as it travels up: a time-lock call that fails
 * inside the RandomX engine returns the engine's RX_E* code, not a generic
 * one.  rxlock_strerror() is the error space's one name: it names any code
 * of any range.  rx_strerror (RX_E* only), tl_strerror (the same function
 * as rxlock_strerror), tl_age_strerror (TL_AGE_E* only) and pq_strerror
 * (PQ_E* only) stay as documented aliases with the same texts
 * (tests/test_errors.c). */
#ifndef RXLOCK_ERROR_H
#define RXLOCK_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

#define RXLOCK_ERANGE_RX_FIRST   (-1)
#define RXLOCK_ERANGE_RX_LAST    (-99)
#define RXLOCK_ERANGE_TL_FIRST   (-100)
#define RXLOCK_ERANGE_TL_LAST    (-199)
#define RXLOCK_ERANGE_AGE_FIRST  (-200)
#define RXLOCK_ERANGE_AGE_LAST   (-299)
#define RXLOCK_ERANGE_PQ_FIRST   (-300)
#define RXLOCK_ERANGE_PQ_LAST    (-399)

#pragma GCC visibility push(default)
/* A one-line English description of err (0 = "success"); never NULL.
 * Codes outside every range give "unknown error". */
const char *rxlock_strerror(int err);
#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
