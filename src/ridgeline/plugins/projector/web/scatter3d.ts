/**
 * The 3D scatter: three.js (WebGL2) points with an orbit camera (drag to orbit, right-drag or shift-drag to pan,
 * wheel to zoom). One draw call for every point; a transition blends the previous positions into the new ones in
 * the vertex shader. Picking projects the points to the screen on the CPU and takes the nearest within a few
 * pixels (a million points in a few milliseconds), so hover and click need no second render pass. Rendering
 * happens only when something changed.
 */
import * as THREE from "three";
import { OrbitControls } from "three/addons/controls/OrbitControls.js";
import type { Scatter, ScatterColours, ScatterEvents } from "./scatter";

const VERTEX = `
attribute vec3 target;
attribute vec3 colour;
attribute float flag;
uniform float t;
uniform float size;
uniform float scale;
uniform float faded;
varying vec3 vColour;
varying float vAlpha;
void main() {
  vec3 p = mix(position, target, t);
  vec4 mv = modelViewMatrix * vec4(p, 1.0);
  gl_Position = projectionMatrix * mv;
  bool shown = flag > 0.5;
  bool selected = flag > 1.5;
  // The size asked for at the starting distance (3.2), larger when the camera comes closer.
  gl_PointSize = shown ? size * (selected ? 1.8 : 1.0) * scale * 3.2 / max(-mv.z, 0.05) : 0.0;
  vColour = selected ? vec3(1.0, 0.24, 0.0) : colour;
  vAlpha = shown ? (selected || faded < 0.5 ? 1.0 : 0.25) : 0.0;
}`;

const FRAGMENT = `
uniform float opacity;
varying vec3 vColour;
varying float vAlpha;
void main() {
  vec2 c = gl_PointCoord - vec2(0.5);
  if (dot(c, c) > 0.25 || vAlpha <= 0.0) discard;
  gl_FragColor = vec4(vColour, opacity * vAlpha);
}`;

export function createScatter3D(container: HTMLElement, events: ScatterEvents): Scatter {
  const renderer = new THREE.WebGLRenderer({ antialias: false, alpha: false, preserveDrawingBuffer: true });
  renderer.setPixelRatio(window.devicePixelRatio || 1);
  const canvas = renderer.domElement;
  canvas.className = "rl-proj-canvas";
  canvas.dataset.testid = "projector-canvas";
  container.appendChild(canvas);
  const scene = new THREE.Scene();
  const camera = new THREE.PerspectiveCamera(45, 1, 0.01, 100);
  camera.position.set(0, 0, 3.2);
  const controls = new OrbitControls(camera, canvas);
  controls.enableDamping = false;
  controls.screenSpacePanning = true;
  let frames = 0;
  let pending = false;
  const render = () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      renderer.render(scene, camera);
      frames++;
    });
  };
  controls.addEventListener("change", () => {
    render();
    events.view();
  });

  const geometry = new THREE.BufferGeometry();
  const material = new THREE.ShaderMaterial({
    vertexShader: VERTEX,
    fragmentShader: FRAGMENT,
    transparent: true,
    depthWrite: false,
    uniforms: {
      t: { value: 1 },
      size: { value: 4 },
      scale: { value: 1 },
      opacity: { value: 0.8 },
      faded: { value: 0 },
    },
  });
  const cloud = new THREE.Points(geometry, material);
  scene.add(cloud);
  let count = 0;
  let positions = new Float32Array(0);
  let flags = new Float32Array(0);
  let visible: Uint8Array = new Uint8Array(0);
  let shown: Set<number> | null = null;
  let selected: number[] = [];

  const resize = () => {
    const box = container.getBoundingClientRect();
    const w = Math.max(1, Math.floor(box.width));
    const h = Math.max(1, Math.floor(box.height));
    renderer.setSize(w, h, true);
    camera.aspect = w / h;
    camera.updateProjectionMatrix();
    material.uniforms.scale!.value = h / 600;
    render();
  };
  resize();

  const updateFlags = () => {
    for (let i = 0; i < count; i++) flags[i] = visible[i] && (!shown || shown.has(i)) ? 1 : 0;
    for (const i of selected) if (i < count && flags[i]) flags[i] = 2;
    material.uniforms.faded!.value = selected.length > 0 ? 1 : 0;
    const attribute = geometry.getAttribute("flag");
    if (attribute) attribute.needsUpdate = true;
    render();
  };

  const setColours = (colours: ScatterColours) => {
    const rgb = colours.palette.map((c) => new THREE.Color(c));
    const data = new Float32Array(count * 3);
    for (let i = 0; i < count; i++) {
      const colour = rgb[colours.index[i]!] ?? rgb[0]!;
      data[i * 3] = colour.r;
      data[i * 3 + 1] = colour.g;
      data[i * 3 + 2] = colour.b;
    }
    geometry.setAttribute("colour", new THREE.BufferAttribute(data, 3));
    render();
  };

  // Picking: the nearest visible point to the mouse on screen, within 8 px, projected on the CPU.
  const projected = new THREE.Vector3();
  const pick = (clientX: number, clientY: number): number | null => {
    const box = canvas.getBoundingClientRect();
    const mx = clientX - box.left;
    const my = clientY - box.top;
    const matrix = new THREE.Matrix4().multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse);
    const e = matrix.elements;
    let best: number | null = null;
    let bestDistance = 64;
    for (let i = 0; i < count; i++) {
      if (!flags[i]) continue;
      const x = positions[i * 3]!;
      const y = positions[i * 3 + 1]!;
      const z = positions[i * 3 + 2]!;
      const w = e[3]! * x + e[7]! * y + e[11]! * z + e[15]!;
      if (w <= 0) continue;
      const sx = (((e[0]! * x + e[4]! * y + e[8]! * z + e[12]!) / w + 1) / 2) * box.width;
      const sy = ((1 - (e[1]! * x + e[5]! * y + e[9]! * z + e[13]!) / w) / 2) * box.height;
      const d = (sx - mx) ** 2 + (sy - my) ** 2;
      if (d < bestDistance) {
        bestDistance = d;
        best = i;
      }
    }
    return best;
  };
  let down: { x: number; y: number } | null = null;
  let hoverQueued: { x: number; y: number } | null = null;
  canvas.addEventListener("pointerdown", (e) => void (down = { x: e.clientX, y: e.clientY }));
  canvas.addEventListener("pointerup", (e) => {
    if (down && Math.abs(e.clientX - down.x) + Math.abs(e.clientY - down.y) < 4) events.click(pick(e.clientX, e.clientY));
    down = null;
  });
  canvas.addEventListener("pointermove", (e) => {
    if (down) return;
    const first = hoverQueued === null;
    hoverQueued = { x: e.clientX, y: e.clientY };
    if (!first) return;
    requestAnimationFrame(() => {
      const at = hoverQueued!;
      hoverQueued = null;
      events.hover(pick(at.x, at.y), at.x, at.y);
    });
  });
  canvas.addEventListener("pointerleave", () => events.hover(null, 0, 0));

  let animation = 0;
  return {
    dims: 3,
    async draw(points, colours, transition) {
      const n = points.x.length;
      const next = new Float32Array(n * 3);
      for (let i = 0; i < n; i++) {
        next[i * 3] = points.x[i]!;
        next[i * 3 + 1] = points.y[i]!;
        next[i * 3 + 2] = points.z[i]!;
      }
      const animate = transition && n === count;
      const from = animate ? positions : next;
      count = n;
      visible = points.visible;
      if (flags.length !== n) flags = new Float32Array(n);
      geometry.setAttribute("position", new THREE.BufferAttribute(from, 3));
      geometry.setAttribute("target", new THREE.BufferAttribute(next, 3));
      geometry.setAttribute("flag", new THREE.BufferAttribute(flags, 1));
      geometry.computeBoundingSphere();
      positions = next;
      setColours(colours);
      updateFlags();
      cancelAnimationFrame(animation);
      if (!animate) {
        material.uniforms.t!.value = 1;
        render();
        return;
      }
      await new Promise<void>((resolve) => {
        const started = performance.now();
        const step = (now: number) => {
          const f = Math.min(1, (now - started) / 700);
          material.uniforms.t!.value = f < 0.5 ? 4 * f * f * f : 1 - (-2 * f + 2) ** 3 / 2; // cubic in-out
          renderer.render(scene, camera);
          frames++;
          if (f < 1) animation = requestAnimationFrame(step);
          else resolve();
        };
        animation = requestAnimationFrame(step);
      });
    },
    recolour: setColours,
    select(indices) {
      selected = indices;
      updateFlags();
    },
    show(indices) {
      shown = indices ? new Set(indices) : null;
      updateFlags();
    },
    style(size, opacity) {
      material.uniforms.size!.value = size;
      material.uniforms.opacity!.value = opacity;
      render();
    },
    setBackground(colour) {
      renderer.setClearColor(new THREE.Color(colour), 1);
      render();
    },
    screenPosition(index) {
      if (index >= count) return null;
      projected.set(positions[index * 3]!, positions[index * 3 + 1]!, positions[index * 3 + 2]!).project(camera);
      if (projected.z > 1 || Math.abs(projected.x) > 1 || Math.abs(projected.y) > 1) return null;
      return [((projected.x + 1) / 2) * canvas.clientWidth, ((1 - projected.y) / 2) * canvas.clientHeight];
    },
    camera() {
      return [...camera.position.toArray(), ...controls.target.toArray()];
    },
    setCamera(values) {
      if (values.length !== 6) return;
      camera.position.set(values[0]!, values[1]!, values[2]!);
      controls.target.set(values[3]!, values[4]!, values[5]!);
      controls.update();
      render();
    },
    reset() {
      camera.position.set(0, 0, 3.2);
      controls.target.set(0, 0, 0);
      controls.update();
      render();
    },
    frames: () => frames,
    setLasso() {
      // Lasso selection is a 2D tool; the 3D view selects with clicks.
    },
    resize,
    destroy() {
      cancelAnimationFrame(animation);
      controls.dispose();
      geometry.dispose();
      material.dispose();
      renderer.dispose();
      canvas.remove();
    },
  };
}
