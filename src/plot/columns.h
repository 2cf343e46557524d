// Axis titles for the columns the project's CSV files share (./train's log.csv, ./eval's
// results and --positions rows, the experiment scripts' tables), so that ./plot labels an axis
// with what the column measures rather than its name:
//
//   column_title("token_acc")   -> "token accuracy"
//   column_title("my_column")   -> NULL (the caller falls back to the name)
//
// The meanings follow docs/usage.md's column tables.
#ifndef COLUMNS_H
#define COLUMNS_H

const char *column_title(const char *name);

#endif
