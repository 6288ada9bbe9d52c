/*
 * The fixture of the package's examples: functions built without frame
 * pointers, whose frames only the call-frame information describes.
 */
volatile long sink;

__attribute__((noinline)) void leaf(long n) { sink += n; }

__attribute__((noinline)) void middle(long n)
{
	long a[4] = {n, n + 1, n + 2, n + 3};

	for (int i = 0; i < 4; i++)
		leaf(a[i]);
	sink++;
}

int main(void)
{
	middle(1);
	return 0;
}
