# Integration tests: vcpuplaced against libvirt and tiny TCG QEMU guests
# (tests/integration/run.py).  Included by the top-level Makefile, which
# defines B and the $(B)/vcpuplaced rule.  Needs root; about 3-6 minutes.
.PHONY: check-integration
check-integration: $(B)/vcpuplaced $(B)/vcpuplacectl $(B)/rename_thread
	sh tools/deps/install.sh integration
	python3 tests/integration/run.py $(B)/vcpuplaced

# gives a QEMU thread a name QEMU never wrote (the thread-name tests)
$(B)/rename_thread: tests/integration/rename_thread.c
	@mkdir -p $(@D)
	$(CC) $(VP_CFLAGS) $(CFLAGS) -o $@ $<
