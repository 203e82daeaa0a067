/** Messages of the security pages. */
export const en = {
  "security.description": "Vulnerability scans of every image your stacks use, worst first.",
  "security.loadFailed": "Couldn't load the image scans",
  "security.noConnectionHint":
    "Stackgate scans the images your stacks use, and it reads the stacks from Komodo. Connect Komodo first.",
  "security.noImages": "No images to scan",
  "security.noImagesHint":
    "None of your stacks names an image yet. Images appear here as soon as a stack uses them.",
  "security.tableLabel": "Images and their latest scan",
  "security.summary.images": "Images: {count}",
  "security.summary.critical": "With critical vulnerabilities: {count}",
  "security.summary.failed": "Scans failed: {count}",
  "security.summary.inProgress": "Scans in progress: {count}",
  "security.scanAll": "Scan all",
  "security.scannerDown.title": "Image scans are waiting: the scanner is not available",
  "security.scannerDown.hint":
    "No image has failed because of this: the scans run as soon as the scanner answers. Stackgate tries it again every few minutes; Scan all tries it now.",
  "security.rescan": "Rescan",
  "security.rescanImage": "Rescan {image}",
  "security.copyImage": "Copy the image reference {image}",
  "security.never": "Never",
  "security.notScannedYet": "No result yet",

  "security.col.image": "Image",
  "security.col.severity": "Severity",
  "security.col.status": "Scan",
  "security.col.stacks": "Used by",
  "security.col.scanned": "Last scanned",
  "security.col.actions": "Actions",
  "security.col.lowAndUnknown": "Low or unknown",

  "security.severity.critical": "Critical",
  "security.severity.high": "High",
  "security.severity.medium": "Medium",
  "security.severity.low": "Low",
  "security.severity.unknown": "Unknown",

  "security.status.queued": "Queued",
  "security.status.scanning": "Scanning",
  "security.status.done": "Scanned",
  "security.status.failed": "Failed",
  "security.status.interrupted": "Interrupted",

  "security.earlier.short": "earlier",
  "security.earlier.note": "These counts are from the scan of {when}; the latest scan failed.",

  "security.reason.unauthorized": "The registry requires credentials",
  "security.reason.notFound": "The image or tag does not exist",
  "security.reason.unavailable": "The scanner is not reachable",
  "security.reason.timeout": "The scan took too long and was stopped",
  "security.reason.other": "The scanner gave no reason",

  "security.scan.queued": "Scans queued: {count}",
  "security.scan.alreadyQueued": "Already in the queue: {count}",
  "security.scan.nothingNew": "Everything is already in the queue",
  "security.scan.failed": "Couldn't queue the scan",

  "security.detail.back": "All images",
  "security.detail.loadFailed": "Couldn't load this image's scan",
  "security.detail.notFound": "No such image here",
  "security.detail.notFoundHint":
    "No stack uses this image and no scan of it is stored. It may have left its stacks; pick it again from the list.",
  "security.detail.noStacks": "No stack uses it any more",
  "security.detail.findings": "Findings",
  "security.detail.scannerOutput": "What the scanner said",
  "security.fix.unauthorized":
    "The scanner pulls the image itself. Give the Stackgate backend the registry's credentials (TRIVY_USERNAME and TRIVY_PASSWORD), then rescan.",
  "security.fix.notFound":
    "Check the image reference in the stack's compose file: the tag may have been removed from the registry.",
  "security.fix.unavailable":
    "Check that the scanner server (TRIVY_SERVER_URL) is running and reachable from the backend, then rescan.",
  "security.fix.timeout":
    "Large images take longer: raise SCANNER_SCAN_TIMEOUT_SECONDS, or rescan when the registry is less busy.",

  "security.vulns.heading": "Vulnerabilities",
  "security.vulns.tableLabel": "Vulnerabilities of the image",
  "security.vulns.filter": "Which vulnerabilities",
  "security.vulns.all": "All",
  "security.vulns.fixableOnly": "Fixable only",
  "security.vulns.severity": "Severity",
  "security.vulns.id": "Advisory",
  "security.vulns.package": "Package",
  "security.vulns.installed": "Installed",
  "security.vulns.fixed": "Fixed in",
  "security.vulns.title": "Title",
  "security.vulns.noFix": "No fix yet",
  "security.vulns.openAdvisory": "Open the advisory {id}",
  "security.vulns.newTab": "opens in a new tab",
  "security.vulns.none": "No known vulnerabilities",
  "security.vulns.noneHint": "The last scan found nothing to fix in this image.",
  "security.vulns.noneFixable": "None of these vulnerabilities has a fixed version yet.",
  "security.vulns.notScanned": "Not scanned yet",
  "security.vulns.notScannedInProgress": "The scan is under way; the results appear here by themselves.",
  "security.vulns.notScannedHint":
    "No scan of this image has succeeded yet. Rescan it once the problem is solved.",
} as const;

export const es = () =>
  ({
    "security.description":
      "Análisis de vulnerabilidades de todas las imágenes que usan tus stacks, las peores primero.",
    "security.loadFailed": "No se han podido cargar los análisis de imágenes",
    "security.noConnectionHint":
      "Stackgate analiza las imágenes que usan tus stacks, y los stacks los lee de Komodo. Primero conecta Komodo.",
    "security.noImages": "No hay imágenes que analizar",
    "security.noImagesHint":
      "Ninguno de tus stacks indica todavía una imagen. Las imágenes aparecerán aquí en cuanto un stack las use.",
    "security.tableLabel": "Imágenes y su último análisis",
    "security.summary.images": "Imágenes: {count}",
    "security.summary.critical": "Con vulnerabilidades críticas: {count}",
    "security.summary.failed": "Análisis fallidos: {count}",
    "security.summary.inProgress": "Análisis en curso: {count}",
    "security.scanAll": "Analizar todas",
    "security.scannerDown.title": "Los análisis esperan: el escáner no está disponible",
    "security.scannerDown.hint":
      "Ninguna imagen ha fallado por esto: los análisis se harán en cuanto el escáner responda. Stackgate lo vuelve a intentar cada pocos minutos; «Analizar todas» lo intenta ahora.",
    "security.rescan": "Reanalizar",
    "security.rescanImage": "Reanalizar {image}",
    "security.copyImage": "Copiar la referencia de imagen {image}",
    "security.never": "Nunca",
    "security.notScannedYet": "Aún sin resultado",

    "security.col.image": "Imagen",
    "security.col.severity": "Gravedad",
    "security.col.status": "Análisis",
    "security.col.stacks": "La usan",
    "security.col.scanned": "Último análisis",
    "security.col.actions": "Acciones",
    "security.col.lowAndUnknown": "Baja o desconocida",

    "security.severity.critical": "Crítica",
    "security.severity.high": "Alta",
    "security.severity.medium": "Media",
    "security.severity.low": "Baja",
    "security.severity.unknown": "Desconocida",

    "security.status.queued": "En cola",
    "security.status.scanning": "Analizando",
    "security.status.done": "Analizado",
    "security.status.failed": "Fallido",
    "security.status.interrupted": "Interrumpido",

    "security.earlier.short": "anterior",
    "security.earlier.note": "Estos recuentos son del análisis del {when}; el último análisis ha fallado.",

    "security.reason.unauthorized": "El registro exige credenciales",
    "security.reason.notFound": "La imagen o la etiqueta no existe",
    "security.reason.unavailable": "No se puede contactar con el escáner",
    "security.reason.timeout": "El análisis tardaba demasiado y se ha detenido",
    "security.reason.other": "El escáner no ha dado ningún motivo",

    "security.scan.queued": "Análisis en cola: {count}",
    "security.scan.alreadyQueued": "Ya estaban en cola: {count}",
    "security.scan.nothingNew": "Todo estaba ya en cola",
    "security.scan.failed": "No se ha podido poner en cola el análisis",

    "security.detail.back": "Todas las imágenes",
    "security.detail.loadFailed": "No se ha podido cargar el análisis de esta imagen",
    "security.detail.notFound": "Esta imagen no está aquí",
    "security.detail.notFoundHint":
      "Ningún stack usa esta imagen y no hay ningún análisis suyo guardado. Puede que ya no forme parte de sus stacks; vuelve a elegirla en la lista.",
    "security.detail.noStacks": "Ya no la usa ningún stack",
    "security.detail.findings": "Hallazgos",
    "security.detail.scannerOutput": "Lo que ha dicho el escáner",
    "security.fix.unauthorized":
      "El escáner descarga la imagen por su cuenta. Dale al backend de Stackgate las credenciales del registro (TRIVY_USERNAME y TRIVY_PASSWORD) y vuelve a analizarla.",
    "security.fix.notFound":
      "Revisa la referencia de la imagen en el compose del stack: puede que la etiqueta ya no exista en el registro.",
    "security.fix.unavailable":
      "Comprueba que el servidor del escáner (TRIVY_SERVER_URL) está en marcha y que el backend llega hasta él; después, vuelve a analizarla.",
    "security.fix.timeout":
      "Las imágenes grandes tardan más: sube SCANNER_SCAN_TIMEOUT_SECONDS o vuelve a analizarla cuando el registro esté menos cargado.",

    "security.vulns.heading": "Vulnerabilidades",
    "security.vulns.tableLabel": "Vulnerabilidades de la imagen",
    "security.vulns.filter": "Qué vulnerabilidades",
    "security.vulns.all": "Todas",
    "security.vulns.fixableOnly": "Solo con solución",
    "security.vulns.severity": "Gravedad",
    "security.vulns.id": "Aviso",
    "security.vulns.package": "Paquete",
    "security.vulns.installed": "Instalada",
    "security.vulns.fixed": "Corregida en",
    "security.vulns.title": "Título",
    "security.vulns.noFix": "Aún sin solución",
    "security.vulns.openAdvisory": "Abrir el aviso {id}",
    "security.vulns.newTab": "se abre en una pestaña nueva",
    "security.vulns.none": "No hay vulnerabilidades conocidas",
    "security.vulns.noneHint": "El último análisis no ha encontrado nada que corregir en esta imagen.",
    "security.vulns.noneFixable": "Ninguna de estas vulnerabilidades tiene todavía una versión corregida.",
    "security.vulns.notScanned": "Todavía sin analizar",
    "security.vulns.notScannedInProgress":
      "El análisis está en marcha; los resultados aparecerán aquí solos.",
    "security.vulns.notScannedHint":
      "Todavía no ha terminado bien ningún análisis de esta imagen. Vuelve a analizarla cuando se haya resuelto el problema.",
  }) as const satisfies Record<keyof typeof en, string>;
