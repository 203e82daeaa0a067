/** Messages of the command palette (Ctrl+K / ⌘K). */
export const en = {
  "palette.open": "Search and commands",
  "palette.title": "Go to or run",
  "palette.input": "Stack, page, image or action",
  "palette.placeholder": "Type a stack, page, image or action…",
  "palette.results": "Results",
  "palette.noResults": "Nothing matches “{query}”.",
  "palette.count.one": "1 result",
  "palette.count.many": "{count} results",
  "palette.kind.page": "Page",
  "palette.kind.stack": "Stack",
  "palette.kind.image": "Image",
  "palette.kind.action": "Action",
  "palette.kind.recent": "Recent",
  "palette.hint": "↑↓ to choose, Enter to open, Esc to close",
  "palette.loading": "Loading the stacks…",
} as const;

export const es = () =>
  ({
    "palette.open": "Buscar y ejecutar",
    "palette.title": "Ir a o ejecutar",
    "palette.input": "Stack, página, imagen o acción",
    "palette.placeholder": "Escribe un stack, una página, una imagen o una acción…",
    "palette.results": "Resultados",
    "palette.noResults": "Nada coincide con «{query}».",
    "palette.count.one": "1 resultado",
    "palette.count.many": "{count} resultados",
    "palette.kind.page": "Página",
    "palette.kind.stack": "Stack",
    "palette.kind.image": "Imagen",
    "palette.kind.action": "Acción",
    "palette.kind.recent": "Reciente",
    "palette.hint": "↑↓ para elegir, Intro para abrir, Esc para cerrar",
    "palette.loading": "Cargando los stacks…",
  }) as const;
