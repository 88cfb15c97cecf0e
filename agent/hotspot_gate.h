/* The gate before every read of HotSpot's internals: today agent/slots.c's (the VMStructs table,
 * the JavaThread found through Thread.eetop, the interpreter frame, a jmethodID taken as a
 * Method**).
 *
 * Nothing checks such reads but our tests: a JDK may change what they point at without a word
 * (JDK 26 made jmethodIDs handles that are no longer Method**, JDK-8268406: read as before they
 * give garbage, and async-profiler crashed on exactly that read).  So they are made only on the JDK
 * feature versions the suites run them on, EXT_IN_PLACE_JDKS (generated from protocol/agent_code.py's
 * IN_PLACE_JDKS, the list `jdwpd doctor` reads too); any other VM gets the safe path (a stack walk,
 * JVMTI).  The feature version is JVMTI's major version: the same number from JDK 9 on (JDK 8's
 * JVMTI is 1.2, which no list holds).
 *
 * What JVMTI and JNI define by position for JDK 21 (vthreads.h) is no internal: those are the
 * public interfaces' tables, which later JDKs only extend, and they are not gated here.
 *
 * The decision itself is inline here so that tests/agent/c/hotspot_gate.c checks it without a JVM. */
#ifndef JDWPD_HOTSPOT_GATE_H
#define JDWPD_HOTSPOT_GATE_H

#include <jvmti.h>
#include <stdbool.h>
#include <stddef.h>

#include "link_protocol.h"

/* A test takes the VM for this feature version as well as its own (tests/ext/test_hotspot_gate.py). */
#define HOTSPOT_GATE_FAKE_PROPERTY "jdwpd.test.jdkFeature"

static inline int hotspot_gate_feature(jint jvmti_version) {
    return (int)(((unsigned)jvmti_version & JVMTI_VERSION_MASK_MAJOR) >> JVMTI_VERSION_SHIFT_MAJOR);
}

static inline bool hotspot_gate_tested(int feature) {
    static const int tested[] = {EXT_IN_PLACE_JDKS};
    for (size_t i = 0; i < sizeof tested / sizeof tested[0]; i++)
        if (tested[i] == feature) return true;
    return false;
}

/* May a VM of this JVMTI version have its internals read?  `faked` (0: none) is a feature version
 * a test takes the VM for: it must be a tested one too, so that faking can take the reads away but
 * never allow them on a VM that is not tested.  When not, *untested is the version refused. */
static inline bool hotspot_gate_allows(jint jvmti_version, int faked, int *untested) {
    int feature = hotspot_gate_feature(jvmti_version);
    if (!hotspot_gate_tested(feature)) return *untested = feature, false;
    if (faked != 0 && !hotspot_gate_tested(faked)) return *untested = faked, false;
    return true;
}

/* ---- hotspot_gate.c ---------------------------------------------------------------------------- */
/* This VM's answer (base_g.jvmti's version, and the test's -Djdwpd.test.jdkFeature if given).  When the
 * reads are refused, `why` says so in a sentence the caller logs. */
bool hotspot_gate_open(char *why, size_t size);

#endif
