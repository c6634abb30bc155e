import { generateData } from './data-generator.js';
const d = await generateData(process.argv[2]!, Number(process.argv[3]));
console.log(JSON.stringify(d));
