/* Class unloads reported (unload_report.c). */
#ifndef JDWPD_UNLOAD_REPORT_H
#define JDWPD_UNLOAD_REPORT_H

#include "base.h"

/* Called by the writer thread, and before every event (the reference reports the unloads a GC did
 * before the next event); no locks held.  Without a GC since the last call: one flag test. */
void unload_report_pending(JNIEnv *env);

#endif
