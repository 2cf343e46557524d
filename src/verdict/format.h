// How the verdicts print numbers: percentages (exact match, token accuracy) as points with one
// decimal, other metrics (loss, MRR) with three; a signed value carries "+" or "-" unless it
// prints as zero ("0.0", never "-0.0").
#ifndef VERDICT_FORMAT_H
#define VERDICT_FORMAT_H

// x (a fraction when percent) into buf: "22.6" or "2.136".
void format_value(char *buf, int len, double x, int percent);
// The same with a sign: "+22.6", "-0.004", "0.0".
void format_signed(char *buf, int len, double x, int percent);
#endif
