/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * fuzz-config.c - libFuzzer target: the campaign loader and validator
 * on arbitrary campaign files.  A file is either a campaign or a config
 * error (78); nothing else may happen.
 */
#include "autoconfig.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/paratune-fuzz-XXXXXX";
	int fd = mkstemp(path);
	struct config_sources src;
	struct settings c;
	int ret;

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		unlink(path);
		return 0;
	}
	close(fd);
	memset(&src, 0, sizeof(src));
	src.no_site = true;
	src.no_user = true;
	src.campaign_path = path;
	settings_init(&c);
	ret = settings_load(&c, &src);
	if (ret != 0 && ret != EXIT_CONFIG)
		abort();
	settings_release(&c);
	unlink(path);
	return 0;
}
