provider demo {
	probe start(int, const char *);
	probe tick(long long);
};
