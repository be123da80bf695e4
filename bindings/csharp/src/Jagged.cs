// Jagged.cs — float[][] / double[][] input: one copy into a row-major array, with the row at
// fault named when a row is null or of another length than row 0.

using System;
using System.Globalization;

namespace FastKKM
{
    internal static class Jagged
    {
        /// <summary>
        /// The rows of x, in order, as one row-major array of n × d values (d = row 0's length).
        /// Throws ArgumentNullException for a null x or row, ArgumentException for no rows or a
        /// row whose length differs from row 0's; the message names the row.
        /// </summary>
        internal static T[] Flatten<T>(T[][] x, string name, out long n, out long d)
        {
            if (x == null) throw new ArgumentNullException(name);
            if (x.Length == 0) throw new ArgumentException(name + " has no rows", name);
            T[] first = x[0];
            if (first == null) throw new ArgumentNullException(name, Format("row 0 of {0} is null", name));
            d = first.LongLength;
            n = x.LongLength;
            for (long i = 0; i < n; ++i)
            {
                T[] row = x[i];
                if (row == null) throw new ArgumentNullException(name, Format("row {1} of {0} is null", name, i));
                if (row.LongLength != d)
                {
                    throw new ArgumentException(Format("row {1} of {0} has {2} values but row 0 has {3}: " +
                                                       "every row needs the same number of columns",
                                                       name, i, row.LongLength, d), name);
                }
            }
            if (d > 0 && n > long.MaxValue / d)
            {
                throw new ArgumentException(Format("{0} has {1} rows of {2} values: too many for one array", name, n, d), name);
            }
            T[] flat = new T[n * d];
            for (long i = 0; i < n; ++i) Array.Copy(x[i], 0, flat, i * d, d);
            return flat;
        }

        /// <summary>The n rows of a row-major array as n arrays.</summary>
        internal static T[][] Split<T>(T[] flat, long n)
        {
            long d = n > 0 ? flat.LongLength / n : 0;
            var rows = new T[n][];
            for (long i = 0; i < n; ++i)
            {
                rows[i] = new T[d];
                Array.Copy(flat, i * d, rows[i], 0, d);
            }
            return rows;
        }

        private static string Format(string format, params object[] args)
        {
            return string.Format(CultureInfo.InvariantCulture, format, args);
        }
    }
}
