/*
 * Die temperature from hwmon, for the calibration sweep and for each
 * interval of a live run that records energy: the first sensor named like
 * a CPU's (coretemp on Intel, k10temp or zenpower on AMD, cpu_thermal on
 * Arm boards), its temp1_input in millidegrees.  The sensor is found once
 * (a directory scan) and then read per interval (one small file).
 */
#include "sleuth/hw.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"

char *sl_hwmon_dir(const char *root, char **sensor)
{
	static const char *const names[] = {"coretemp", "k10temp", "zenpower", "cpu_thermal",
					    NULL};
	char *dir = sl_xasprintf("%s/class/hwmon", root ? root : "/sys");
	DIR *d = opendir(dir);
	struct dirent *e;
	char *found = NULL;
	while (d && (e = readdir(d)) && !found) {
		if (strncmp(e->d_name, "hwmon", 5))
			continue;
		char *hw = sl_xasprintf("%s/%s", dir, e->d_name);
		char *name = sl_sysfs_line(hw, "name");
		for (size_t i = 0; name && names[i] && !found; i++)
			if (!strcmp(name, names[i]) && !isnan(sl_hwmon_read_c(hw))) {
				found = hw;
				hw = NULL;
				if (sensor)
					*sensor = sl_xstrdup(name);
			}
		free(name);
		free(hw);
	}
	if (d)
		closedir(d);
	free(dir);
	return found;
}

double sl_hwmon_read_c(const char *hwmon_dir)
{
	char *v = sl_sysfs_line(hwmon_dir, "temp1_input");
	double mc, t = NAN;
	if (v && sl_parse_double(v, &mc) == 0)
		t = mc / 1000;
	free(v);
	return t;
}

double sl_hwmon_temp_c(const char *root, char **sensor)
{
	char *hw = sl_hwmon_dir(root, sensor);
	double t = hw ? sl_hwmon_read_c(hw) : NAN;
	free(hw);
	return t;
}
