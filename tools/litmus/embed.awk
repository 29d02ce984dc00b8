# Turn a text file into a C string constant: awk -v name=NAME -f embed.awk FILE
BEGIN { printf "const char %s[] =\n", name }
{
	out = ""
	for (i = 1; i <= length($0); i++) {
		c = substr($0, i, 1)
		if (c == "\\" || c == "\"")
			out = out "\\"
		out = out c
	}
	printf "\t\"%s\\n\"\n", out
}
END { print ";" }
