/* Files of fake sysfs trees for the collect tests (RAPL zones, hwmon
 * sensors): write `text` to DIR/REL, failing the test if it cannot. */
#ifndef SLEUTH_TESTS_FAKESYS_H
#define SLEUTH_TESTS_FAKESYS_H

void fakesys_put(const char *dir, const char *rel, const char *text);

#endif
