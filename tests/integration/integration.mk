# Integration tests: vcpuplaced against libvirt and tiny TCG QEMU guests
# (tests/integration/run.py), run by check-integration (tests/check.mk).
# Included by the top-level Makefile, which defines B and VP_CFLAGS.

# gives a QEMU thread a name QEMU never wrote (the thread-name tests)
$(B)/rename_thread: tests/integration/rename_thread.c
	@mkdir -p $(@D)
	$(CC) $(VP_CFLAGS) $(CFLAGS) -o $@ $<
