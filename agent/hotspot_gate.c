/* The gate before HotSpot's internals (hotspot_gate.h): this VM's JVMTI version, read at the gate. */
#include <stdio.h>
#include <stdlib.h>

#include "base.h"
#include "hotspot_gate.h"

/* The version a test fakes: 0 when none; anything but a plain number counts as untested (-1). */
static int faked_feature(void) {
    char *value = NULL;
    if ((*base_g.jvmti)->GetSystemProperty(base_g.jvmti, HOTSPOT_GATE_FAKE_PROPERTY, &value) != JVMTI_ERROR_NONE ||
        value == NULL)
        return 0;
    char *end = NULL;
    long n = strtol(value, &end, 10);
    int faked = (*value && *end == '\0' && n > 0 && n < 10000) ? (int)n : -1;
    base_jvmti_free(value);
    return faked;
}

static void tested_list(char *out, size_t size) {
    static const int tested[] = {EXT_IN_PLACE_JDKS};
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof tested / sizeof tested[0] && used < size; i++) {
        int n = snprintf(out + used, size - used, "%s%d", i ? ", " : "", tested[i]);
        if (n < 0) break;
        used += (size_t)n;
    }
}

bool hotspot_gate_open(char *why, size_t size) {
    jint version = 0;
    if ((*base_g.jvmti)->GetVersionNumber(base_g.jvmti, &version) != JVMTI_ERROR_NONE) {
        snprintf(why, size, "JVMTI gives no version number");
        return false;
    }
    int untested = 0;
    if (hotspot_gate_allows(version, faked_feature(), &untested)) return true;
    char list[64];
    tested_list(list, sizeof list);
    if (untested >= 9)  /* below 9, JVMTI's major version is not the JDK's (JDK 8's JVMTI is 1.2) */
        snprintf(why, size, "JDK %d is not among the versions tested for reading in place: %s", untested, list);
    else
        snprintf(why, size, "this VM's JDK version is not among those tested for reading in place: %s", list);
    return false;
}
