/* JSR-45 source maps (SourceDebugExtension "SMAP"): the lines a line step compares in a class that has
 * one are those of the default stratum, as the reference agent's are (docs/link.md, Steps). */
#ifndef JDWPD_SMAP_H
#define JDWPD_SMAP_H

#include "base.h"
#include "buf.h"

typedef struct smap smap;

/* NULL when text is no SMAP or breaks its syntax anywhere (then the class is stepped by Java lines). */
smap *smap_parse(const char *text);
void smap_free(smap *map);

/* Rewrite lines[0..n) in place, in table order, to stratum lines: an entry whose Java line the stratum
 * maps to nothing is dropped (its code joins the entry before it), an entry whose stratum line is the
 * previous kept entry's joins it.  A stratum line is a number (file id << 16) + line, only ever compared.
 * stratum NULL: the SMAP's own default.  Returns the new count; n unchanged when the stratum resolves
 * to Java. */
jint smap_convert(const smap *map, const char *stratum, jint n, jvmtiLineNumberEntry *lines);

/* The step machine's entry: converts method m's Java line table (from GetLineNumberTable) by the current
 * default stratum when m's class has a SMAP.  Classes are looked up once per method (cached). */
jint smap_step_lines(jmethodID m, jint n, jvmtiLineNumberEntry *lines);

/* Bumped by every SET_DEFAULT_STRATUM: a step's converted table older than this is stale. */
uint32_t smap_stratum_generation(void);

/* SourceNameMatch as the reference judges it beyond the class's SourceFile: a source name of any stratum
 * of the class's SMAP (file names, not paths; the SMAP's generated file name too) matches the pattern,
 * by the filters' own pattern rule. */
bool smap_source_name_match(jclass cls, const char *pattern, bool (*match)(const char *pattern, const char *name));

/* After RedefineClasses: a class may carry another SourceDebugExtension under the same method ids. */
void smap_forget_classes(void);

/* SET_DEFAULT_STRATUM: smap_set_default_stratum (LINK_HANDLERS_SMAP, link_protocol.h). */
LINK_HANDLERS_SMAP(BUF_DECLARE_FILLS, BUF_DECLARE_REPLIES)

#endif
