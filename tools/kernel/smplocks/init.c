/* SPDX-License-Identifier: MIT */
/* A minimal /init for the .smp_locks probe boot: load /probe.ko (its init
 * prints what the kernel text holds at the lock sites), optionally bring
 * cpu1 online and load it again, then power off. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/syscall.h>
#include <unistd.h>

static void load(const char *what)
{
	int fd = open("/probe.ko", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || syscall(SYS_finit_module, fd, "", 0) != 0)
		printf("katomic-smplocks-init: %s: load failed: %s\n", what, strerror(errno));
	if (fd >= 0)
		close(fd);
	syscall(SYS_delete_module, "katomic_smplocks_probe", O_NONBLOCK);
}

int main(void)
{
	int fd;

	mount("sysfs", "/sys", "sysfs", 0, "");
	load("boot");
	fd = open("/sys/devices/system/cpu/cpu1/online", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "1", 1) == 1)
			printf("katomic-smplocks-init: cpu1 online\n");
		else
			printf("katomic-smplocks-init: cpu1 online failed: %s\n", strerror(errno));
		close(fd);
		load("cpu1");
	} else {
		printf("katomic-smplocks-init: no cpu1\n");
	}
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
