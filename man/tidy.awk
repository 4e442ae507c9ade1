# tidy.awk - drops the paragraph macros scdoc 1.11 writes where they
# make no paragraph: a .P right after .SH or .SS, and a .P followed by
# .SH, .SS, another .P or the end; a .P just before .RE (the end of an
# indented item) moves after it, where it still parts two items.
# mandoc -T lint warns about each ("skipping paragraph macro"); groff
# and mandoc render the page the same without them.
/^\.P$/ {
	if (prev ~ /^\.S[HS]( |$)/)
		next
	pending = 1
	next
}
/^\.RE$/ && pending {
	# the blank line between two indented items: after the .RE
	print
	prev = $0
	next
}
{
	if (pending && $0 !~ /^\.(SH|SS|P)( |$)/)
		print ".P"
	pending = 0
	print
	prev = $0
}
