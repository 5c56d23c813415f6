/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * logparse-number.c - numbers as training logs print them: "1.258695E+01",
 * "4294967296.0", "5,856", "2e+3", "nan", "-inf".
 *
 * Locale-free, and exact where it matters: a decimal of at most 17
 * significant digits whose power of ten is exact as a double (10^-22 to
 * 10^22) is one correctly rounded division or multiplication (Clinger's
 * fast path, "How to read floating point numbers accurately", PLDI 1990);
 * the rest goes to strtod.
 */
#include "autoconfig.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "logparse-int.h"

/* Powers of ten that are exact doubles (10^22 is the last one). */
static const double pow10_exact[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* strtod on a bounded copy: for the rare numbers off the fast path.
 * paratune never calls setlocale, so "." is the decimal point. */
static double
slow_number(const char *s, size_t n)
{
	char buf[80];
	size_t k = 0;

	for (size_t i = 0; i < n && k + 1 < sizeof buf; i++)
		if (s[i] != ',')
			buf[k++] = s[i];
	buf[k] = '\0';
	return strtod(buf, NULL);
}

/* nan, inf, infinity in any case, with a sign; bytes taken or 0. */
static size_t
special_number(const char *s, size_t n, double *v)
{
	size_t i = 0;
	bool neg = false;

	if (i < n && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	if (n - i >= 3 && !strncasecmp(s + i, "nan", 3)) {
		*v = NAN;
		return i + 3;
	}
	if (n - i >= 3 && !strncasecmp(s + i, "inf", 3)) {
		*v = neg ? -INFINITY : INFINITY;
		i += 3;
		if (n - i >= 5 && !strncasecmp(s + i, "inity", 5))
			i += 5;
		return i;
	}
	return 0;
}

/* The digits of a decimal number as read so far: up to 17 of them
 * exactly in mant, the rest counted in scale (or dropped after the
 * point), with exact false once any is. */
struct decimal {
	unsigned long long mant;
	int scale;
	size_t digits;
	bool exact;
};

#define MANT_FULL 100000000000000000ull

/* One digit more; after_point: it is a fraction's. */
static inline void
decimal_digit(struct decimal *d, char c, bool after_point)
{
	if (d->mant < MANT_FULL) {
		d->mant = d->mant * 10 + (unsigned)(c - '0');
		d->scale -= after_point;
	} else {
		d->exact = false;
		d->scale += !after_point;
	}
	d->digits++;
}

/* The integer digits and, after a '.', the fraction's from s[i]; the
 * index after them. */
static inline size_t
scan_digits(const char *s, size_t n, size_t i, bool commas,
            struct decimal *d)
{
	for (; i < n; i++) {
		/* "5,856": a comma before exactly three digits. */
		if (commas && s[i] == ',' && d->digits && i + 3 < n &&
		    logparse_is_digit(s[i + 1]) &&
		    logparse_is_digit(s[i + 2]) &&
		    logparse_is_digit(s[i + 3]))
			continue;
		if (!logparse_is_digit(s[i]))
			break;
		decimal_digit(d, s[i], false);
	}
	if (i < n && s[i] == '.')
		for (i++; i < n && logparse_is_digit(s[i]); i++)
			decimal_digit(d, s[i], true);
	return i;
}

/* An exponent "e-5" at s[i], if one with digits is there: the index
 * after it, its value in *exp10; else i, and *exp10 untouched. */
static inline size_t
scan_exponent(const char *s, size_t n, size_t i, int *exp10)
{
	size_t j = i + 1;
	bool eneg = false;
	int e = 0;

	if (i >= n || (s[i] != 'e' && s[i] != 'E'))
		return i;
	if (j < n && (s[j] == '-' || s[j] == '+'))
		eneg = s[j++] == '-';
	if (j >= n || !logparse_is_digit(s[j]))
		return i;
	for (; j < n && logparse_is_digit(s[j]); j++)
		if (e < 10000)
			e = e * 10 + (s[j] - '0');
	*exp10 = eneg ? -e : e;
	return j;
}

size_t
logparse_number_prefix(const char *s, size_t n, bool commas, double *v)
{
	struct decimal d = { .exact = true };
	size_t i = 0, start;
	int exp10 = 0;
	bool neg = false;

	while (i < n && logparse_is_space(s[i]))
		i++;
	start = i;
	if (i < n && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	i = scan_digits(s, n, i, commas, &d);
	if (d.digits == 0) {
		size_t k = special_number(s + start, n - start, v);

		return k ? start + k : 0;
	}
	i = scan_exponent(s, n, i, &exp10);
	exp10 += d.scale;
	/* Exact integer times or over an exact power of ten rounds
	 * correctly (Clinger's fast path); anything else goes to strtod. */
	if (d.exact && d.mant < (1ull << 53) && exp10 >= -22 && exp10 <= 22) {
		double x = (double)d.mant;

		x = exp10 < 0 ? x / pow10_exact[-exp10]
		              : x * pow10_exact[exp10];
		*v = neg ? -x : x;
	} else {
		*v = slow_number(s + start, i - start);
	}
	return i;
}

bool
logparse_number(const char *s, size_t n, bool commas, double *v,
                bool *special)
{
	size_t k = logparse_number_prefix(s, n, commas, v);

	if (k == 0)
		return false;
	while (k < n && logparse_is_space(s[k]))
		k++;
	*special = !isfinite(*v);
	return k == n;
}
