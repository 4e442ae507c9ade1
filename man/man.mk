# Manual pages: man/NAME.SECTION.scd, in scdoc's syntax, into
# $(B)/man/NAME.SECTION at build time.  The install paths are written
# into the pages (@POLICYDIR@ and the rest), so the pages are remade
# when a path changes, as the binaries are (vp_paths.h).  scdoc stamps
# the page with SOURCE_DATE_EPOCH: the date of the source's last
# commit, so a rebuild gives the same bytes.
#
#   make man          the pages only
#   make check-man    lint them, hold them to the binaries' options, and
#                     run their examples (tests/man/check.sh; the rule is
#                     in tests/check.mk, with every check)

MANDIR ?= $(PREFIX)/share/man
MAN_SRCS := $(sort $(wildcard man/*.scd))
MAN_PAGES := $(patsubst man/%.scd,$(B)/man/%,$(MAN_SRCS))
# section from the name: vcpuplaced.8 goes to man8
man_section = $(subst .,,$(suffix $(1)))
MAN_INSTALLED = $(foreach p,$(MAN_PAGES),$(MANDIR)/man$(call \
	man_section,$(p))/$(notdir $(p)))

MAN_SED = -e 's|@POLICYDIR@|$(POLICY_DIR_INSTALLED)|g' \
	-e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
	-e 's|@RUNSTATEDIR@|$(RUNSTATEDIR)|g' -e 's|@DOCDIR@|$(DOCDIR)|g'

.PHONY: man install-man
all: man
man: $(MAN_PAGES)
# kept: check-man reads the examples from them
.SECONDARY: $(MAN_PAGES:=.scd)

# Rewritten only when a path changes (like vp_paths.h).
$(B)/man/paths: FORCE
	@mkdir -p $(dir $@)
	@printf '%s\n' "$(POLICY_DIR_INSTALLED)" "$(SYSCONFDIR)" \
		"$(RUNSTATEDIR)" "$(DOCDIR)" > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@

# The .scd with the paths in: what the page says, and what check-man
# takes the examples from.
$(B)/man/%.scd: man/%.scd $(B)/man/paths
	sed $(MAN_SED) $< > $@.tmp && mv -f $@.tmp $@

$(B)/man/%: $(B)/man/%.scd man/tidy.awk
	@command -v scdoc >/dev/null || { echo "scdoc: not found; run" \
		"\`make deps' (as root) first" >&2; exit 1; }
	SOURCE_DATE_EPOCH=$$(git log -1 --format=%ct -- man/$*.scd \
		2>/dev/null | grep . || date +%s) scdoc < $< > $@.roff
	awk -f man/tidy.awk $@.roff > $@.tmp && rm -f $@.roff && \
		mv -f $@.tmp $@

install: install-man
install-man: $(MAN_PAGES)
	for p in $(MAN_PAGES); do \
		s=$${p##*.}; \
		install -d $(DESTDIR)$(MANDIR)/man$$s && \
		install -m 0644 $$p $(DESTDIR)$(MANDIR)/man$$s/ || exit 1; \
	done
