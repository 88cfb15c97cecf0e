/* Class names as JDWP writes them (dotted: "java.lang.String") and its class patterns. */
#ifndef JDWPD_CLASS_NAMES_H
#define JDWPD_CLASS_NAMES_H

#include "base.h"

/* JDWP's class pattern (ClassMatch, ClassExclude): exact, or one '*' at the start or the end. */
bool class_names_match(const char *pattern, const char *name);

/* The dotted name of a class (arrays keep their signature form with dots, as the reference does),
 * malloc'd; NULL when JVMTI cannot say (or memory ran out). */
char *class_names_dotted(jclass cls);

#endif
