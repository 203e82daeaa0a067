/** The shell's messages: navigation, account, preferences, sign-in, error pages, shared UI words. */
export const en = {
  "shell.skipToContent": "Skip to content",
  "nav.label": "Main",
  "nav.overview": "Overview",
  "nav.stacks": "Stacks",
  "nav.history": "History",
  "nav.security": "Security",
  "nav.settings": "Settings",
  "nav.menu": "Menu",

  "account.menu": "Account of {name}",
  "account.signedInAs": "Signed in as",
  "account.signOut": "Sign out",
  "account.signOutFailed": "Couldn't sign out. Check your connection and try again.",

  "prefs.language": "Language",
  "prefs.darkTheme": "Dark theme",

  "footer.version": "Version {version}",
  "footer.apiReference": "API reference",
  "footer.openapi": "OpenAPI document",

  "demo.label": "Demo",
  "demo.description": "Stackgate is talking to a simulated Komodo: nothing you do here touches real servers.",

  "page.comingSoon": "This page arrives in a later version of Stackgate.",
  "designSystem.title": "Design system",
  "designSystem.description": "The building blocks of every page, shown with sample data.",

  "signIn.title": "Sign in to Stackgate",
  "signIn.subtitle": "Deploys, history and image scans for your Komodo host.",
  "signIn.email": "Email",
  "signIn.password": "Password",
  "signIn.submit": "Sign in",
  "signIn.submitting": "Signing in…",
  "signIn.wrongCredentials": "Wrong email or password.",
  "signIn.unreachable": "Can't reach the Stackgate server. Check that it is running, then try again.",
  "signIn.tooManyAttempts": "Too many attempts. Wait a minute, then try again.",
  "signIn.failed": "Sign-in failed (HTTP {status}). Try again; if it keeps failing, check the backend logs.",
  "signIn.accountHelp": "Accounts are created by whoever runs this Stackgate.",

  "notFound.title": "Page not found",
  "notFound.description": "Nothing lives at {path}. Check the address or pick a page from the menu.",
  "notFound.home": "Go to the overview",

  "unavailable.title": "The Stackgate backend is not responding",
  "unavailable.description":
    "The dashboard couldn't check your session because the backend didn't answer in time. If you run Stackgate, make sure the backend process is up and look at its logs, then try again.",

  "ui.retry": "Try again",
  "ui.cancel": "Cancel",
  "ui.loading": "Loading…",
  "ui.copy": "Copy",
  "ui.copied": "Copied",
  "ui.copyFailed": "Couldn't copy",
  "ui.dismiss": "Dismiss",
  "ui.notifications": "Notifications",
  "ui.noConnection.title": "No Komodo connection yet",
  "ui.noConnection.connect": "Connect Komodo",
} as const;

export const es = () =>
  ({
    "shell.skipToContent": "Saltar al contenido",
    "nav.label": "Principal",
    "nav.overview": "Resumen",
    "nav.stacks": "Stacks",
    "nav.history": "Historial",
    "nav.security": "Seguridad",
    "nav.settings": "Ajustes",
    "nav.menu": "Menú",

    "account.menu": "Cuenta de {name}",
    "account.signedInAs": "Has iniciado sesión como",
    "account.signOut": "Cerrar sesión",
    "account.signOutFailed": "No se ha podido cerrar la sesión. Revisa la conexión y vuelve a intentarlo.",

    "prefs.language": "Idioma",
    "prefs.darkTheme": "Tema oscuro",

    "footer.version": "Versión {version}",
    "footer.apiReference": "Referencia de la API",
    "footer.openapi": "Documento OpenAPI",

    "demo.label": "Demo",
    "demo.description":
      "Stackgate está conectado a un Komodo simulado: nada de lo que hagas aquí afecta a servidores reales.",

    "page.comingSoon": "Esta página llegará en una próxima versión de Stackgate.",
    "designSystem.title": "Sistema de diseño",
    "designSystem.description": "Las piezas con las que se construye cada página, con datos de ejemplo.",

    "signIn.title": "Inicia sesión en Stackgate",
    "signIn.subtitle": "Despliegues, historial y análisis de imágenes de tu servidor Komodo.",
    "signIn.email": "Correo electrónico",
    "signIn.password": "Contraseña",
    "signIn.submit": "Entrar",
    "signIn.submitting": "Entrando…",
    "signIn.wrongCredentials": "El correo o la contraseña no son correctos.",
    "signIn.unreachable":
      "No hay conexión con el servidor de Stackgate. Comprueba que está en marcha y vuelve a intentarlo.",
    "signIn.tooManyAttempts": "Demasiados intentos. Espera un minuto y vuelve a probar.",
    "signIn.failed":
      "No se ha podido iniciar sesión (HTTP {status}). Vuelve a intentarlo y, si sigue fallando, revisa los registros del backend.",
    "signIn.accountHelp": "Las cuentas las crea quien administra este Stackgate.",

    "notFound.title": "No encontramos esta página",
    "notFound.description": "En {path} no hay nada. Revisa la dirección o elige una página del menú.",
    "notFound.home": "Ir al resumen",

    "unavailable.title": "El backend de Stackgate no responde",
    "unavailable.description":
      "El panel no ha podido comprobar tu sesión porque el backend no ha respondido a tiempo. Si administras Stackgate, comprueba que el proceso del backend está en marcha y echa un vistazo a sus registros; después, vuelve a intentarlo.",

    "ui.retry": "Volver a intentarlo",
    "ui.cancel": "Cancelar",
    "ui.loading": "Cargando…",
    "ui.copy": "Copiar",
    "ui.copied": "Copiado",
    "ui.copyFailed": "No se ha podido copiar",
    "ui.dismiss": "Cerrar",
    "ui.notifications": "Notificaciones",
    "ui.noConnection.title": "Aún no hay conexión con Komodo",
    "ui.noConnection.connect": "Conectar Komodo",
  }) as const satisfies Record<keyof typeof en, string>;
