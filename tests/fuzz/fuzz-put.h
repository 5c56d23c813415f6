/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * fuzz-put.h - what the fuzz targets that read a directory share: write
 * an input's bytes as a file there.  Each target is one translation
 * unit (tests/fuzz/run.sh), hence a static function in a header.
 */
#ifndef PARATUNE_FUZZ_PUT_H
#define PARATUNE_FUZZ_PUT_H

#include <stdio.h>

#include "xalloc.h"

/* Write size bytes of data to dir/name; returns the path (caller
 * frees).  A failed write leaves what it could: the reader then meets
 * a missing or short file, which it must handle too. */
static char *
fuzz_put(const char *dir, const char *name, const void *data, size_t size)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "wb");

	if (f) {
		fwrite(data, 1, size, f);
		fclose(f);
	}
	return path;
}

#endif
