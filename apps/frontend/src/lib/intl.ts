/**
 * The dashboard's date, number and relative-time formatters, made once per language and options.
 * Creating an Intl formatter is slow: about 0.15 ms each, and the page's first date formatter loads
 * ICU's date data (30 ms here). Made in every render of every row, they added up to long tasks.
 */
function cachedBy<Options, Formatter>(make: (lang: string, options: Options) => Formatter) {
  const made = new Map<string, Formatter>();
  return (lang: string, options: Options): Formatter => {
    const key = `${lang} ${JSON.stringify(options)}`;
    let formatter = made.get(key);
    if (!formatter) {
      formatter = make(lang, options);
      made.set(key, formatter);
    }
    return formatter;
  };
}

export const dateTimeFormat = cachedBy(
  (lang, options: Intl.DateTimeFormatOptions) => new Intl.DateTimeFormat(lang, options),
);
export const numberFormat = cachedBy(
  (lang, options: Intl.NumberFormatOptions) => new Intl.NumberFormat(lang, options),
);
export const relativeTimeFormat = cachedBy(
  (lang, options: Intl.RelativeTimeFormatOptions) => new Intl.RelativeTimeFormat(lang, options),
);
