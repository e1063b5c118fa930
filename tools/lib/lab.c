// SPDX-License-Identifier: GPL-2.0
/* The lab device, /dev/proxylab (CONFIG_PROXYLAB); see pxutil.h. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "pxutil.h"

int px_lab_open(void)
{
	return open(PX_LAB_DEV, O_RDWR | O_CLOEXEC);
}

int px_lab_open_or_exit(int status)
{
	int fd = px_lab_open();

	if (fd >= 0)
		return fd;
	if (errno == ENOENT || errno == ENODEV || errno == ENXIO)
		px_fatalx(status, "no %s: kernel without CONFIG_PROXYLAB", PX_LAB_DEV);
	px_fatal(status, "cannot open %s%s", PX_LAB_DEV,
		 errno == EACCES ? " (run as root)" : "");
}
